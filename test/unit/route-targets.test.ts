import { describe, expect, it } from 'vitest';
import { providerFees, routeTargets } from '../../shared/domain/route-targets.ts';
import { FEES } from '../../shared/providers/fees.ts';
import type { ConnectorRecord } from '../../shared/store/connectors.ts';
import type { ProviderStats } from '../../shared/store/routing-stats.ts';

/** Accounts as the store lists them: newest first. */
const account = (id: string, provider: ConnectorRecord['provider'], mode: ConnectorRecord['mode'] = 'test'): ConnectorRecord => ({
  id,
  merchant_id: 'mer_1',
  provider,
  mode,
  label: null,
  status: 'active',
  credentials_sealed: 'v1.x.y',
  credentials_hint: '…0000',
  fees: FEES[provider],
  created_at: '2026-11-23T00:00:00.000Z',
  updated_at: '2026-11-23T00:00:00.000Z',
});
const stats = (attempts: number, approvals: number): ProviderStats => ({ attempts, approvals, latency_sum: attempts * 150 });
const ids = (targets: ReturnType<typeof routeTargets>) => targets.map((t) => t.connectorId ?? `${t.provider} sandbox`);

describe('routeTargets', () => {
  it('expands each provider, in the strategy’s order, to its accounts; newest first while they score alike', () => {
    const accounts = [account('con_b2', 'braintree'), account('con_s2', 'stripe'), account('con_s1', 'stripe')];
    expect(ids(routeTargets(accounts, 'test', ['stripe', 'braintree', 'adyen'], { stats: {}, amount: 1000 }))).toEqual([
      'con_s2',
      'con_s1',
      'con_b2',
      'adyen sandbox',
    ]);
  });

  it('orders one provider’s accounts by their own recent score: one that keeps failing moves behind', () => {
    const accounts = [account('con_s2', 'stripe'), account('con_s1', 'stripe')];
    const scoring = { stats: { con_s2: stats(20, 6), con_s1: stats(20, 19) }, amount: 1000 };
    expect(ids(routeTargets(accounts, 'test', ['stripe'], scoring))).toEqual(['con_s1', 'con_s2']);
  });

  it('in live mode leaves out a provider without a live account (no sandbox), and other modes’ or disabled accounts', () => {
    const accounts = [
      account('con_test', 'stripe', 'test'),
      account('con_live', 'adyen', 'live'),
      { ...account('con_off', 'braintree', 'live'), status: 'disabled' as const },
    ];
    expect(
      ids(
        routeTargets(
          accounts.filter((a) => a.mode === 'live'),
          'live',
          ['stripe', 'adyen', 'braintree'],
          { stats: {}, amount: 1000 },
        ),
      ),
    ).toEqual(['con_live']);
  });

  it('orders one provider’s accounts cheapest first for lowest_cost, by each account’s own schedule', () => {
    const accounts = [account('con_s2', 'stripe'), { ...account('con_s1', 'stripe'), fees: { percent: 1.5, fixed: 10 } }];
    expect(ids(routeTargets(accounts, 'test', ['stripe'], { stats: {}, amount: 1000, cheapestFirst: true }))).toEqual(['con_s1', 'con_s2']);
  });
});

describe('providerFees', () => {
  it('gives each provider its cheapest active account’s schedule at the amount, and none to a provider without one', () => {
    const accounts = [
      { ...account('con_s1', 'stripe'), fees: { percent: 1, fixed: 100 } },
      { ...account('con_s2', 'stripe'), fees: { percent: 3, fixed: 0 } },
      { ...account('con_off', 'adyen'), status: 'disabled' as const, fees: { percent: 0, fixed: 0 } },
    ];
    expect(providerFees(accounts, 'test', 1000)).toEqual({ stripe: { percent: 3, fixed: 0 } });
    expect(providerFees(accounts, 'test', 100_000)).toEqual({ stripe: { percent: 1, fixed: 100 } });
  });
});
