import * as apiKeys from '../store/api-keys.ts';
import * as settings from '../store/settings.ts';
import { sha256 } from './credentials.ts';
import { BadRequest, Unauthorized } from './errors.ts';

const PUBLISHABLE = /^pk_(live|test)_[0-9A-Za-z]{43}$/;

/**
 * What the card fields page of a publishable key needs: the checkout origins of the key's merchant and mode (the
 * frame's `frame-ancestors`). `origin` is the page that asks to frame it, where the frame will post its result: it
 * must be one of them. An unknown, revoked or secret key answers 401 without saying which.
 */
export async function checkoutOf(key: string, origin: string): Promise<{ origins: string[]; livemode: boolean }> {
  const record = PUBLISHABLE.test(key) ? await apiKeys.getApiKeyByHash(sha256(key)) : undefined;
  if (!record || record.status !== 'active' || record.key_type !== 'publishable') {
    throw new Unauthorized('invalid_api_key', 'the card fields need an active publishable key (pk_…)');
  }
  const owner = { merchant_id: record.merchant_id, livemode: record.mode === 'live' };
  const { checkout_origins: origins } = await settings.getSettings(owner);
  if (!origins.includes(origin)) {
    const fix = `add it to checkout_origins (PUT /api/settings, ${record.mode} mode)`;
    throw new BadRequest('parameter_invalid', 'origin', `origin must be a checkout origin of this key's merchant: ${fix}`);
  }
  return { origins, livemode: owner.livemode };
}
