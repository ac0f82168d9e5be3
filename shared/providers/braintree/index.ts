import { within } from '../transport.ts';
import type { Mode, ProviderModule, Verification } from '../types.ts';
import { endpointFor, post } from './client.ts';
import { BraintreeConnector } from './connector.ts';
import { type BraintreeCredentials, braintreeCredentialsSchema } from './credentials.ts';
import { VERIFY } from './queries.ts';

export { BRAINTREE_VERSION, graphqlUrl, LIVE_ORIGIN, SANDBOX_ORIGIN } from './client.ts';
export type { BraintreeCredentials } from './credentials.ts';

const VERIFY_TIMEOUT_MS = 5_000;

async function verify(credentials: BraintreeCredentials, mode: Mode, signal?: AbortSignal): Promise<Verification> {
  const mapped = Object.entries(credentials.merchant_account_ids ?? {});
  type Viewer = {
    viewer: {
      merchant: { id: string; merchantAccounts?: { edges: Array<{ node: { id: string; currencyCode: string; status: string } | null } | null> } };
    };
  };
  const answer = await post<Viewer>(
    endpointFor(credentials, mode),
    VERIFY,
    { accountIds: mapped.map(([, id]) => id), checkAccounts: mapped.length > 0 },
    within(VERIFY_TIMEOUT_MS, signal),
  );
  if (!answer.ok) {
    if (answer.errorClass === 'AUTHENTICATION') return { ok: false, reason: `Braintree did not accept these API keys (${mode} environment)` };
    if (answer.errorClass === 'AUTHORIZATION')
      return { ok: false, reason: 'these API keys may not read the merchant (Braintree: authorization error)' };
    return { ok: false, reason: `Braintree could not be asked: ${answer.message}` };
  }
  const merchant = answer.data.viewer.merchant;
  if (merchant.id !== credentials.merchant_id)
    return { ok: false, reason: `these API keys belong to another merchant than ${credentials.merchant_id}` };
  const accounts = new Map((merchant.merchantAccounts?.edges ?? []).flatMap((edge) => (edge?.node ? [[edge.node.id, edge.node] as const] : [])));
  for (const [currency, id] of mapped) {
    const account = accounts.get(id);
    if (!account) return { ok: false, reason: `merchant account ${id} (for ${currency}) does not exist at Braintree` };
    if (account.currencyCode !== currency) return { ok: false, reason: `merchant account ${id} takes ${account.currencyCode}, not ${currency}` };
    if (account.status !== 'ACTIVE') return { ok: false, reason: `merchant account ${id} is ${account.status?.toLowerCase()}` };
  }
  return { ok: true };
}

export const braintreeProvider: ProviderModule<BraintreeCredentials> = {
  provider: 'braintree',
  credentialsSchema: braintreeCredentialsSchema,
  hint: (credentials) => `…${credentials.public_key.slice(-4)}`,
  // Braintree's keys carry no mode: sandbox keys simply fail authentication at the live endpoint (verify says so).
  modeMismatch: () => undefined,
  verify,
  connect: (credentials, account) => new BraintreeConnector(credentials, account),
};
