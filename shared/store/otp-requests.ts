import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { conditionalWrite, db, sendConditional, TABLE, ttl } from './client.ts';
import { Int, recordReader, Text } from './item-schemas.ts';
import { otpKeys } from './keys.ts';

export interface OtpRequestRecord {
  request_id: string;
  email: string;
  otp_hmac: string;
  attempts: number;
  used: boolean;
  /** epoch ms; the TTL attribute (seconds) deletes the item later */
  expires_ms: number;
}

/** The sign-in code request as the table holds it, checked when read back (see item-schemas.ts). */
const OtpRequestItem = v.object({ request_id: Text, email: Text, otp_hmac: Text, attempts: Int, used: v.boolean(), expires_ms: Int });
const otpRequestOf: (item: Record<string, unknown>) => OtpRequestRecord = recordReader('OTP request', OtpRequestItem);

export async function putOtpRequest(record: OtpRequestRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...otpKeys.request(record.request_id), type: 'otp_request', ...record, expires_at: ttl(record.expires_ms) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getOtpRequest(requestId: string): Promise<OtpRequestRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: otpKeys.request(requestId), ConsistentRead: true }));
  return out.Item && otpRequestOf(out.Item);
}

/** A try taken (the request as it is now, the try counted), or why none was left. */
export type OtpTry = { taken: true; request: OtpRequestRecord } | { taken: false; reason: 'unknown' | 'used' | 'expired' | 'exhausted' };

/**
 * Takes one of the request's tries in one conditional update: counted only while the request is unused, unexpired
 * at `now` and below `maxAttempts`, so guesses arriving at once can never obtain more tries than that between them.
 */
export async function takeOtpTry(requestId: string, maxAttempts: number, now: number): Promise<OtpTry> {
  const result = await sendConditional(
    new UpdateCommand({
      TableName: TABLE,
      Key: otpKeys.request(requestId),
      UpdateExpression: 'ADD attempts :one',
      ConditionExpression: 'attribute_exists(pk) AND used = :false AND expires_ms > :now AND attempts < :max',
      ExpressionAttributeValues: { ':one': 1, ':false': false, ':now': now, ':max': maxAttempts },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  if (result.written) return { taken: true, request: otpRequestOf(result.attributes ?? {}) };
  if (!result.old) return { taken: false, reason: 'unknown' };
  const old = otpRequestOf(unmarshall(result.old as Parameters<typeof unmarshall>[0]));
  return { taken: false, reason: old.used ? 'used' : old.expires_ms <= now ? 'expired' : 'exhausted' };
}

/** Marks the OTP used exactly once (by a guess that holds a try); false when another guess used it first. */
export async function consumeOtp(requestId: string): Promise<boolean> {
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: otpKeys.request(requestId),
      UpdateExpression: 'SET used = :true',
      ConditionExpression: 'attribute_exists(pk) AND used = :false',
      ExpressionAttributeValues: { ':true': true, ':false': false },
    }),
  );
}
