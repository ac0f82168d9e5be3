import * as settings from '../store/settings.ts';
import type { SettingsRecord } from '../store/settings.ts';
import { ownerOf, type Merchant } from './auth.ts';
import { isoNow } from '../model/clock.ts';

export interface SettingsView {
  object: 'settings';
  livemode: boolean;
  checkout_origins: string[];
  updated_at: string | null;
}

const view = (record: SettingsRecord): SettingsView => ({
  object: 'settings',
  livemode: record.livemode,
  checkout_origins: record.checkout_origins,
  updated_at: record.updated_at,
});

/** The settings of the mode the request acts in. */
export const readSettings = async (merchant: Merchant): Promise<SettingsView> => view(await settings.getSettings(ownerOf(merchant)));

/** `checkout_origins` arrive validated and normalised (shared/schemas/settings.ts). */
export const changeSettings = async (merchant: Merchant, changes: { checkout_origins?: string[] }): Promise<SettingsView> =>
  view(await settings.updateSettings(ownerOf(merchant), changes, isoNow()));
