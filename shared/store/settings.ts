import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import { recordReader, Text } from './item-schemas.ts';
import { merchantKeys, settingsKeys } from './keys.ts';
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

/**
 * The merchant's branding (docs/api.md "Branding"), one for both modes: on its profile, where invitations and sign-in
 * already read `business_name`. The name is the e-mail the merchant was created with until one is set.
 */
export interface BrandingRecord {
  business_name: string;
  brand_color: string | null;
  support_email: string | null;
}
export type BrandingChanges = Partial<{ business_name: string; brand_color: string | null; support_email: string | null }>;

const ProfileBranding = v.object({
  email: v.optional(Text),
  business_name: v.optional(Text),
  brand_color: v.optional(v.nullable(Text), null),
  support_email: v.optional(v.nullable(Text), null),
});

export async function getBranding(merchantId: string): Promise<BrandingRecord> {
  const out = await db.send(
    new GetCommand({
      TableName: TABLE,
      Key: merchantKeys.profile(merchantId),
      ProjectionExpression: '#e, business_name, brand_color, support_email',
      ExpressionAttributeNames: { '#e': 'email' },
    }),
  );
  const profile = v.parse(ProfileBranding, out.Item ?? {});
  return {
    business_name: profile.business_name ?? profile.email ?? merchantId,
    brand_color: profile.brand_color,
    support_email: profile.support_email,
  };
}

/** Sets the fields given (a whole value each: the list of origins is replaced, not merged) and answers the result. */
export async function updateSettings(
  owner: Owner,
  changes: { checkout_origins?: string[] },
  branding: BrandingChanges,
  now: string,
): Promise<SettingsRecord> {
  // a first update without origins still stores the default, so the item always reads back whole
  const brand = Object.keys(branding).length > 0;
  await commit({
    writes: [
      ...(brand ? [{ update: { entity: 'merchant' as const, id: owner.merchant_id }, set: { ...branding } }] : []),
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
