import { isLocal } from '../config.ts';
import * as apiKeys from '../store/api-keys.ts';
import * as settings from '../store/settings.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { sha256 } from '../model/credentials.ts';
import { BadRequest, Unauthorized } from '../model/errors.ts';
import { plainWebUrl } from './header-values.ts';
import { isLoopback } from './origins.ts';

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

/**
 * Where a payment may send the shopper back (`return_url`, docs/api.md "3-D Secure and return URLs"): https on one of
 * the mode's checkout origins (an http one there is a loopback origin, as the list allows), on a local runtime also
 * any loopback origin, or this service's own invoice or payment link page (`serviceBaseUrl`/hosted/pay/…, /hosted/link/…). Anything else
 * answers 400 `url_not_allowed`: the service's domain is never an open redirect. `plainWebUrl` is the shape the
 * header values made from the URL later (`Location`, CSP sources) need.
 */
/** This service's shopper pages a payment may come back to: an invoice's, a payment link's. */
const OWN_PAGES = ['/hosted/pay/', '/hosted/link/'];

export async function checkReturnUrl(merchant: Merchant, value: string, serviceBaseUrl: string, param = 'return_url'): Promise<void> {
  const url = plainWebUrl(value);
  // compared as parsed (dot segments resolved): a path that only starts so cannot lead elsewhere on the domain
  const base = serviceBaseUrl.replace(/\/+$/, '');
  const ownPage = !!url && serviceBaseUrl !== '' && OWN_PAGES.some((page) => url.href.startsWith(`${base}${page}`));
  if (url && (ownPage || (isLocal && isLoopback(url)) || (await listedOrigin(merchant, url)))) return;
  const mode = merchant.livemode ? 'live' : 'test';
  throw new BadRequest(
    'url_not_allowed',
    param,
    `${param} must be an https URL on one of your checkout_origins: add its origin to checkout_origins (PUT /api/settings, ${mode} mode) first`,
  );
}

async function listedOrigin(merchant: Merchant, url: URL): Promise<boolean> {
  const { checkout_origins: origins } = await settings.getSettings(ownerOf(merchant));
  return origins.includes(url.origin);
}
