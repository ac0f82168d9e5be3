import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, isConditionFailure, TABLE, ttl } from './client.ts';
import { idempotencyKeys } from './keys.ts';

export interface IdempotencyRecord {
  request_hash: string;
  status: 'in_progress' | 'completed';
  /** epoch ms after which an in-progress record is considered abandoned (its function timed out) */
  locked_until: number;
  response_status?: number;
  response_body?: string;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

/**
 * Claims the key for this request: a new key, or an abandoned in-progress one with the same request, is taken
 * atomically; otherwise the existing record is returned for the caller to replay or refuse.
 */
export async function claimIdempotencyKey(
  scope: string,
  key: string,
  requestHash: string,
  now: number,
  lockMs: number,
  keepMs: number,
): Promise<ClaimResult> {
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          ...idempotencyKeys.record(scope, key),
          type: 'idempotency',
          request_hash: requestHash,
          status: 'in_progress',
          locked_until: now + lockMs,
          expires_at: ttl(now + keepMs),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR (#status = :in_progress AND locked_until < :now AND request_hash = :hash)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':in_progress': 'in_progress', ':now': now, ':hash': requestHash },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true };
  } catch (e) {
    if (isConditionFailure(e) && e instanceof Error && 'Item' in e && e.Item) {
      return { claimed: false, existing: unmarshallOld(e.Item as Record<string, unknown>) };
    }
    throw e;
  }
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

/** Frees the key after a server failure so that a retry can run the request again. */
export async function releaseIdempotencyKey(scope: string, key: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: TABLE, Key: idempotencyKeys.record(scope, key) }));
}

// The document client does not unmarshall the item carried by a ConditionalCheckFailedException.
function unmarshallOld(item: Record<string, unknown>): IdempotencyRecord {
  return unmarshall(item as Parameters<typeof unmarshall>[0]) as IdempotencyRecord;
}
