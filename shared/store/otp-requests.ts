import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { conditionalWrite, db, TABLE, ttl } from './client.ts';
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

/** Counts one wrong try; false when the request was used or exhausted meanwhile. */
export async function recordWrongOtp(requestId: string, maxAttempts: number): Promise<boolean> {
  return conditionalUpdate(requestId, 'ADD attempts :one', 'used = :false AND attempts < :max', { ':one': 1, ':max': maxAttempts });
}

/** Marks the OTP used exactly once; false when another request used it first or it was exhausted meanwhile. */
export async function consumeOtp(requestId: string, maxAttempts: number): Promise<boolean> {
  return conditionalUpdate(requestId, 'SET used = :true', 'used = :false AND attempts < :max', { ':true': true, ':max': maxAttempts });
}

async function conditionalUpdate(requestId: string, update: string, condition: string, values: Record<string, unknown>) {
  return conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: otpKeys.request(requestId),
      UpdateExpression: update,
      ConditionExpression: `attribute_exists(pk) AND ${condition}`,
      ExpressionAttributeValues: { ':false': false, ...values },
    }),
  );
}
