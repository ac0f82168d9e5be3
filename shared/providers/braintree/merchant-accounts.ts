import { providerDeadlines } from '../deadlines.ts';
import { softReason } from '../failures.ts';
import { type Endpoint, post } from './client.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { DEFAULT_MERCHANT_ACCOUNT } from './queries.ts';

/** A read that failed before anything was sent for money: the soft reason to give. */
export class Failure {
  constructor(readonly reason: 'provider_down' | 'processing_error') {}
}

/** Which of the merchant's accounts takes a currency (Braintree's currency is the merchant account's). */
export class MerchantAccounts {
  /** the currency of the merchant's default merchant account, read once (used when no account is mapped) */
  private defaultCurrency: Promise<string | undefined | Failure> | undefined;

  constructor(
    private readonly credentials: BraintreeCredentials,
    private readonly endpoint: Endpoint,
  ) {}

  /**
   * The merchant account for `currency`: the mapped one; with no mapping at all, the default account (undefined: not
   * sent) if its currency is this one; null when no account of this merchant takes the currency (nothing is sent).
   */
  async accountFor(currency: string): Promise<string | undefined | null | Failure> {
    const mapped = this.credentials.merchant_account_ids;
    if (mapped) return mapped[currency] ?? null;
    this.defaultCurrency ??= this.readDefaultCurrency(AbortSignal.timeout(providerDeadlines.lookupMs));
    const result = await this.defaultCurrency;
    if (result instanceof Failure) {
      this.defaultCurrency = undefined;
      return result;
    }
    return result === undefined || result === currency ? undefined : null;
  }

  private async readDefaultCurrency(signal: AbortSignal): Promise<string | undefined | Failure> {
    type Accounts = {
      viewer: { merchant: { merchantAccounts: { edges: Array<{ node: { currencyCode: string; isDefault: boolean } | null } | null> } | null } };
    };
    const answer = await post<Accounts>(this.endpoint, DEFAULT_MERCHANT_ACCOUNT, {}, signal);
    if (!answer.ok) return new Failure(softReason(answer.failure.class === 'unknown' ? 'outage' : answer.failure.class));
    const accounts = answer.data.viewer.merchant.merchantAccounts?.edges ?? [];
    return accounts.find((edge) => edge?.node?.isDefault)?.node?.currencyCode ?? undefined;
  }
}
