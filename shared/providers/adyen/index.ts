import { providerDeadlines } from '../deadlines.ts';
import { within } from '../transport.ts';
import type { ConnectorAccountRef, ProviderModule, Verification } from '../types.ts';
import { type Answer, clientFor, send } from './client.ts';
import { AdyenConnector } from './connector.ts';
import { type AdyenCredentials, adyenCredentialsSchema } from './credentials.ts';

export { ADYEN_EXPONENTS, adyenValue } from './amounts.ts';
export { checkoutBaseUrl } from './client.ts';
export type { AdyenCredentials } from './credentials.ts';
export { parseProviderToken } from './authorization.ts';

/** Why a verification failed, in words a merchant can act on (never the key itself). */
function verificationFailure(answer: Exclude<Answer<unknown>, { ok: true }>, merchantAccount: string): string {
  const detail = answer.error ? ` (${[answer.error.errorCode, answer.error.message].filter(Boolean).join(' ')})` : '';
  if (answer.status === 401) return `Adyen refused the API key${detail}`;
  if (answer.status === 403) return `Adyen refused the API key for merchant account ${merchantAccount}${detail}`;
  if (answer.status !== undefined) return `Adyen answered HTTP ${answer.status}${detail}`;
  return 'Adyen could not be reached';
}

export const adyenProvider: ProviderModule<AdyenCredentials> = {
  provider: 'adyen',
  credentialsSchema: adyenCredentialsSchema,
  hint: (credentials) => `…${credentials.api_key.slice(-4)}`,
  modeMismatch: (credentials, mode) =>
    mode === 'live' && !credentials.live_url_prefix
      ? 'A live Adyen connector needs live_url_prefix (Customer Area > Developers > API URLs, e.g. 1797a841fbb37ca7-AdyenDemo)'
      : undefined,
  /** POST /paymentMethods for the merchant account: authenticated, read-only, and it proves the key may act for it. */
  async verify(credentials, mode, signal): Promise<Verification> {
    const answer = await send(
      (s) => clientFor(credentials, mode).POST('/paymentMethods', { body: { merchantAccount: credentials.merchant_account }, signal: s }),
      within(providerDeadlines.operationMs, signal),
    );
    return answer.ok ? { ok: true } : { ok: false, reason: verificationFailure(answer, credentials.merchant_account) };
  },
  connect: (credentials, account: ConnectorAccountRef) => new AdyenConnector(credentials, clientFor(credentials, account.mode)),
};
