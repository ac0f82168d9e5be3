import * as settings from '../store/settings.ts';
import type { BrandingChanges, BrandingRecord, SettingsRecord } from '../store/settings.ts';
import { ownerOf, type Merchant } from './auth.ts';
import { isoNow } from '../model/clock.ts';

export interface SettingsView {
  object: 'settings';
  livemode: boolean;
  checkout_origins: string[];
  business_name: string;
  brand_color: string | null;
  support_email: string | null;
  updated_at: string | null;
}

const view = (record: SettingsRecord, branding: BrandingRecord): SettingsView => ({
  object: 'settings',
  livemode: record.livemode,
  checkout_origins: record.checkout_origins,
  ...branding,
  updated_at: record.updated_at,
});

/** The settings of the mode the request acts in, with the merchant's branding (the same in both modes). */
export const readSettings = async (merchant: Merchant): Promise<SettingsView> => {
  const [record, branding] = await Promise.all([settings.getSettings(ownerOf(merchant)), settings.getBranding(merchant.id)]);
  return view(record, branding);
};

/** The fields arrive validated and normalised (shared/schemas/settings.ts); the branding is the merchant's, both modes. */
export async function changeSettings(merchant: Merchant, changes: { checkout_origins?: string[] } & BrandingChanges): Promise<SettingsView> {
  const { checkout_origins, ...rest } = changes;
  const branding: BrandingChanges = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const record = await settings.updateSettings(ownerOf(merchant), checkout_origins ? { checkout_origins } : {}, branding, isoNow());
  return view(record, await settings.getBranding(merchant.id));
}
