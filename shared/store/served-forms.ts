import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, sendConditional, TABLE, ttl } from './client.ts';
import { servedFormKeys } from './keys.ts';

/**
 * The forms a shopper page served (`page`: the invoice or payment link it is for), kept until `expiresMs` (TTL).
 * A post is taken only with a form its page served, and only once.
 */
export async function recordServedForm(formId: string, page: string, expiresMs: number): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...servedFormKeys.form(formId), type: 'served_form', page, expires_ms: expiresMs, expires_at: ttl(expiresMs) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** `taken`: the post may go on; `used`: this page's form was posted before; `unknown`: not a form this page served (or expired). */
export type FormUse = 'taken' | 'used' | 'unknown';

/** Takes the form for its one post, in one conditional update: of two posts at once, one takes it. */
export async function takeServedForm(formId: string, page: string, now: number): Promise<FormUse> {
  const result = await sendConditional(
    new UpdateCommand({
      TableName: TABLE,
      Key: servedFormKeys.form(formId),
      UpdateExpression: 'SET used_ms = :now',
      ConditionExpression: 'attribute_exists(pk) AND page = :page AND expires_ms > :now AND attribute_not_exists(used_ms)',
      ExpressionAttributeValues: { ':now': now, ':page': page },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  if (result.written) return 'taken';
  const old = result.old && unmarshall(result.old as Parameters<typeof unmarshall>[0]);
  return old?.page === page && typeof old.used_ms === 'number' ? 'used' : 'unknown';
}
