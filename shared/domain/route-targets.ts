import { feeOf } from '../providers/fees.ts';
import type { FeeSchedule, Mode, ProviderName } from '../providers/types.ts';
import type { ConnectorRecord } from '../store/connectors.ts';
import * as routingStats from '../store/routing-stats.ts';
import type { ProviderStats } from '../store/routing-stats.ts';
import type { Merchant } from './auth.ts';
import { scoreProvider } from './routing.ts';

/*
 * Where a payment can go, from the connector accounts routing read: pure functions over the accounts, apart from the
 * code that opens an account and calls its provider (connectors.ts), so what routes, lists or describes payments
 * does not bundle the providers' SDKs.
 */

export const modeOf = (merchant: Pick<Merchant, 'livemode'>): Mode => (merchant.livemode ? 'live' : 'test');

/** The active ones of the connector accounts routing read (store/routing-setup.ts), newest first: its candidates (see routeTargets). */
export const activeConnectors = (connectors: readonly ConnectorRecord[]): ConnectorRecord[] => connectors.filter((c) => c.status === 'active');

/** Where a payment can be sent: a connector account of the merchant, or (test mode only) a provider's built-in sandbox. */
export interface RouteTarget {
  provider: ProviderName;
  connectorId: string | null;
  label: string | null;
  /** the account as routing listed it, when it did */
  account?: ConnectorRecord;
}

/**
 * The targets for providers in routing order: each provider's active accounts of `mode`, best smart score first
 * (each account's own recent approvals, latency and fee; newest first while they score alike); in test mode a
 * provider with no connected test account is served by its sandbox; in live mode it is not eligible.
 */
export function routeTargets(
  accounts: readonly ConnectorRecord[],
  mode: Mode,
  providers: readonly ProviderName[],
  scoring: { stats: Record<string, ProviderStats>; amount: number; cheapestFirst?: boolean },
): RouteTarget[] {
  const score = (a: ConnectorRecord) =>
    scoring.cheapestFirst
      ? -feeOf(a.fees, scoring.amount)
      : scoreProvider(a.provider, scoring.stats[a.id] ?? routingStats.emptyStats(), scoring.amount, a.fees).score;
  return providers.flatMap((provider): RouteTarget[] => {
    const connected = eligible(accounts, mode, provider).sort((a, b) => score(b) - score(a));
    if (connected.length > 0) return connected.map((a) => ({ provider, connectorId: a.id, label: a.label, account: a }));
    return mode === 'test' ? [{ provider, connectorId: null, label: null }] : [];
  });
}

const eligible = (accounts: readonly ConnectorRecord[], mode: Mode, provider: ProviderName) =>
  accounts.filter((a) => a.provider === provider && a.mode === mode && a.status === 'active');

/**
 * The fee schedule each provider stands for in routing: its cheapest eligible account's at `amount` (a provider the
 * sandbox serves, or none: the standard price).
 */
export function providerFees(accounts: readonly ConnectorRecord[], mode: Mode, amount: number): Partial<Record<ProviderName, FeeSchedule>> {
  const fees: Partial<Record<ProviderName, FeeSchedule>> = {};
  for (const account of accounts) {
    if (!eligible([account], mode, account.provider).length) continue;
    const current = fees[account.provider];
    if (!current || feeOf(account.fees, amount) < feeOf(current, amount)) fees[account.provider] = account.fees;
  }
  return fees;
}

/** A target as a reason names it: `stripe via con_… (Stripe EU)`, or `adyen (sandbox)`. */
export const describeTarget = (t: RouteTarget): string =>
  t.connectorId ? `${t.provider} via ${t.connectorId}${t.label ? ` (${t.label})` : ''}` : `${t.provider} (sandbox)`;
