import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { conditionalWrite, type ConditionalResult, db, sendConditional, TABLE, ttl } from './client.ts';
import { Int, picklistOf, recordReader, Text } from './item-schemas.ts';
import { idempotencyKeys } from './keys.ts';

export interface IdempotencyRecord {
  request_hash: string;
  status: 'in_progress' | 'completed';
  /** epoch ms after which an in-progress record is considered abandoned (its function timed out) */
  locked_until: number;
  /** epoch ms of the key's first claim: kept by every re-claim, so a rerun mints the ids the first run did */
  first_at: number;
  response_status?: number;
  response_body?: string;
}

/** The record as the table holds it, checked when read back (see item-schemas.ts): the response once the key completes. */
const IdempotencyItem = v.object({
  request_hash: Text,
  status: picklistOf<IdempotencyRecord['status']>()(['in_progress', 'completed']),
  locked_until: Int,
  first_at: Int,
  response_status: v.optional(Int),
  response_body: v.optional(Text),
});
const idempotencyOf: (item: Record<string, unknown>) => IdempotencyRecord = recordReader('idempotency record', IdempotencyItem);

/** `lockedUntil` is this claim's lease: only its holder may end it early ({@link endIdempotencyLease}). */
export type ClaimResult = { claimed: true; firstAt: number; lockedUntil: number } | { claimed: false; existing: IdempotencyRecord };

/**
 * Claims the key for this request. A new key is taken with a conditional put that records `first_at`. An existing
 * in-progress record of the same request whose lease has ended is taken over with a conditional update that moves
 * only the lease and keeps `first_at`. Anything else is
 * returned for the caller to replay or refuse.
 */
export async function claimIdempotencyKey(
  scope: string,
  key: string,
  requestHash: string,
  now: number,
  lockMs: number,
  keepMs: number,
): Promise<ClaimResult> {
  const lockedUntil = now + lockMs;
  const put = await sendConditional(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...idempotencyKeys.record(scope, key),
        type: 'idempotency',
        request_hash: requestHash,
        status: 'in_progress',
        locked_until: lockedUntil,
        first_at: now,
        expires_at: ttl(now + keepMs),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  if (put.written) return { claimed: true, firstAt: now, lockedUntil };
  const existing = oldRecordOf(put);
  if (existing.status !== 'in_progress' || existing.request_hash !== requestHash || existing.locked_until >= now) {
    return { claimed: false, existing };
  }
  const takeOver = await sendConditional(
    new UpdateCommand({
      TableName: TABLE,
      Key: idempotencyKeys.record(scope, key),
      UpdateExpression: 'SET locked_until = :until',
      ConditionExpression: '#status = :in_progress AND locked_until < :now AND request_hash = :hash',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':in_progress': 'in_progress', ':now': now, ':hash': requestHash, ':until': lockedUntil },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  if (takeOver.written) return { claimed: true, firstAt: idempotencyOf(takeOver.attributes ?? {}).first_at, lockedUntil };
  // Another retry took the lease (or completed the key) between our read and our update.
  return { claimed: false, existing: oldRecordOf(takeOver) };
}

export async function completeIdempotencyKey(scope: string, key: string, status: number, body: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: idempotencyKeys.record(scope, key),
      UpdateExpression: 'SET #status = :completed, response_status = :code, response_body = :body',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':completed': 'completed', ':code': status, ':body': body },
    }),
  );
}

/**
 * Ends this claim's lease at once (the request provably committed nothing), keeping the record and its `first_at`:
 * an immediate retry runs again with the same origin. A lease another request has taken since is left alone.
 */
export async function endIdempotencyLease(scope: string, key: string, lockedUntil: number): Promise<void> {
  await conditionalWrite(
    new UpdateCommand({
      TableName: TABLE,
      Key: idempotencyKeys.record(scope, key),
      UpdateExpression: 'SET locked_until = :zero',
      ConditionExpression: '#status = :in_progress AND locked_until = :ours',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':in_progress': 'in_progress', ':ours': lockedUntil, ':zero': 0 },
    }),
  );
}

/**
 * The record a refused write found (the document client does not unmarshall it). Both writes of a claim are
 * refused only by an existing record, so one is always there.
 */
function oldRecordOf(result: ConditionalResult): IdempotencyRecord {
  if (result.written || !result.old) throw new Error('Idempotency claim refused without a record');
  return idempotencyOf(unmarshall(result.old as Parameters<typeof unmarshall>[0]));
}
