import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, TABLE } from './client.ts';
import { recordReader, Text } from './item-schemas.ts';
import { settingsKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';

export interface SettingsRecord {
  merchant_id: string;
  livemode: boolean;
  /** origins (`https://shop.example`) whose pages may frame the hosted card fields, normalised */
  checkout_origins: string[];
  updated_at: string | null;
}

const SettingsItem = v.object({ merchant_id: Text, livemode: v.boolean(), checkout_origins: v.array(Text), updated_at: v.nullable(Text) });
const settingsOf: (item: Record<string, unknown>) => SettingsRecord = recordReader('settings', SettingsItem);

/** The owner's settings; a merchant who never set any has the defaults (no checkout origin). */
export async function getSettings(owner: Owner): Promise<SettingsRecord> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: settingsKeys.item(owner), ConsistentRead: true }));
  return out.Item ? settingsOf(out.Item) : { ...owner, checkout_origins: [], updated_at: null };
}

/** Sets the fields given (a whole value each: the list of origins is replaced, not merged) and answers the result. */
export async function updateSettings(owner: Owner, changes: { checkout_origins?: string[] }, now: string): Promise<SettingsRecord> {
  const fields: Record<string, unknown> = { type: 'settings', ...owner, updated_at: now, ...changes };
  const names = Object.keys(fields);
  // a first update without origins still stores the default, so the item always reads back whole
  const defaults = changes.checkout_origins ? '' : ', checkout_origins = if_not_exists(checkout_origins, :none)';
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: settingsKeys.item(owner),
      UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}${defaults}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
      ExpressionAttributeValues: { ...Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])), ...(defaults && { ':none': [] }) },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return settingsOf(out.Attributes!);
}
