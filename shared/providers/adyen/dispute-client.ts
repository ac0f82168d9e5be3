/**
 * Adyen's Disputes API v30 through a client typed from Adyen's published OpenAPI, like Checkout (client.ts).
 * `dispute-v30.d.ts` is generated from the whole (small) contract:
 *   npx openapi-typescript infra/local/fakes/contracts/adyen-DisputeService-v30.json --default-non-nullable=false \
 *     -o shared/providers/adyen/dispute-v30.d.ts && npx prettier --write shared/providers/adyen/dispute-v30.d.ts
 */
import type { Client } from 'openapi-fetch';
import { config } from '../../config.ts';
import type { Mode } from '../types.ts';
import { keptClient } from './client.ts';
import type { AdyenCredentials } from './credentials.ts';
import type { paths } from './dispute-v30.d.ts';

const DISPUTE_SERVICE_PATH = '/ca/services/DisputeService/v30';

/**
 * The Disputes API's base URL: at the origin of `ADYEN_CHECKOUT_BASE_URL` when it is set (the fake serves both APIs),
 * otherwise Adyen's Customer Area host of the mode (the Disputes API has no account-specific live prefix).
 */
export function disputeBaseUrl(mode: Mode): string {
  const override = config.ADYEN_CHECKOUT_BASE_URL;
  if (override) return `${new URL(override).origin}${DISPUTE_SERVICE_PATH}`;
  return `https://${mode === 'test' ? 'ca-test' : 'ca-live'}.adyen.com${DISPUTE_SERVICE_PATH}`;
}

export type DisputeClient = Client<paths>;
const clients = new Map<string, DisputeClient>();

export const disputeClientFor = (credentials: AdyenCredentials, mode: Mode): DisputeClient =>
  keptClient(clients, disputeBaseUrl(mode), credentials.api_key);
