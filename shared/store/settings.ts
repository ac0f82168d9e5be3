import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, TABLE } from './client.ts';
import { commit } from './commit.ts';
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
  // a first update without origins still stores the default, so the item always reads back whole
  await commit({
    writes: [
      {
        update: { entity: 'settings', owner: { merchant_id: owner.merchant_id, livemode: owner.livemode } },
        upsert: true,
        set: { type: 'settings', merchant_id: owner.merchant_id, livemode: owner.livemode, updated_at: now, ...changes },
        ...(changes.checkout_origins ? {} : { setIfAbsent: { checkout_origins: [] } }),
      },
    ],
  });
  return getSettings(owner);
}
