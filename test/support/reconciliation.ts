import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { handler as revenue } from '../../functions/analytics/revenue.ts';
import { handler as getBalance } from '../../functions/balance/get.ts';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as reconcile } from '../../functions/connectors/reconcile.ts';
import { handler as listExceptions } from '../../functions/reconciliation/exceptions/list.ts';
import { handler as resolve } from '../../functions/reconciliation/exceptions/resolve.ts';
import { handler as getSettlement } from '../../functions/settlements/get.ts';
import { handler as getLines } from '../../functions/settlements/lines.ts';
import { handler as listSettlements } from '../../functions/settlements/list.ts';
import { handler as openDispute } from '../../functions/test-helpers/dispute.ts';
import { handler as listEvents } from '../../functions/webhooks/events.ts';
import { handler as dailyReconciliation } from '../../functions/workers/daily-reconciliation.ts';
import { handler as reconcileAccount } from '../../functions/workers/reconcile-account.ts';
import { type ReconciliationMessage, reconciliationsQueue } from '../../shared/domain/reconciliation.ts';
import type { ProviderName } from '../../shared/providers/types.ts';
import { ADYEN_FAKE_CREDENTIALS, type AdyenFakeServer } from '../../infra/local/fakes/adyen/server.ts';
import { type BraintreeFake, FAKE_BRAINTREE_CREDENTIALS } from '../../infra/local/fakes/braintree/server.ts';
import { type StripeFake, stripeFakeAccount } from '../../infra/local/fakes/stripe/server.ts';
import type { FakeServer } from '../../infra/local/fakes/types.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from './lambda.ts';
import { bearer, newMerchant } from './merchant.ts';
import { paymentBody, payments } from './payments.ts';

/** The reconciliation API and what it books, called as API Gateway would (a merchant's key in `key`). */
export const recon = {
  run: (key: string, connectorId: string) =>
    invokeHttp(reconcile, apiEvent({ method: 'POST', path: `/api/connectors/${connectorId}/reconcile`, headers: bearer(key) })),
  exceptions: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(listExceptions, apiEvent({ method: 'GET', path: '/api/reconciliation/exceptions', headers: bearer(key), query })),
  resolve: (key: string, id: string, body: unknown) =>
    invokeHttp(resolve, apiEvent({ method: 'POST', path: `/api/reconciliation/exceptions/${id}/resolve`, headers: bearer(key), body })),
  settlement: (key: string, id: string) =>
    invokeHttp(getSettlement, apiEvent({ method: 'GET', path: `/api/settlements/${id}`, headers: bearer(key) })),
  lines: (key: string, id: string) =>
    invokeHttp(getLines, apiEvent({ method: 'GET', path: `/api/settlements/${id}/lines`, headers: { ...bearer(key), Accept: 'text/csv' } })),
  settlements: (key: string) => invokeHttp(listSettlements, apiEvent({ method: 'GET', path: '/api/settlements', headers: bearer(key) })),
  balance: async (key: string) => (await invokeHttp(getBalance, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(key) }))).body,
  revenue: async (key: string) =>
    (
      await invokeHttp(
        revenue,
        apiEvent({ method: 'GET', path: '/api/analytics/revenue', headers: bearer(key), query: { period: '7d', currency: 'USD' } }),
      )
    ).body,
  eventTypes: async (key: string) =>
    (
      await invokeHttp(listEvents, apiEvent({ method: 'GET', path: '/api/webhooks/events', headers: bearer(key), query: { limit: '100' } }))
    ).body.data.map((e: { event: string }) => e.event),
};

/**
 * A new merchant connected to a Stripe account of its own at the fake `fake` (no other merchant's money is in its
 * payouts, nor a daily job's run elsewhere reads them), whose notifications reach its webhook_url at `inbound`.
 */
export async function stripeMerchant(fake: StripeFake, inbound: (connectorId: string) => string) {
  const { apiKey, merchantId } = await newMerchant();
  const credentials = stripeFakeAccount();
  const body = { provider: 'stripe', credentials };
  const res = await invokeHttp(createConnector, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body }));
  expect(res.status).toBe(200);
  fake.notifications.register(inbound(res.body.id));
  return { apiKey, merchantId, connectorId: res.body.id as string, secretKey: credentials.secret_key };
}

/**
 * A new merchant connected to a merchant account of its own at the Adyen fake `fake` (its batches are its own), whose
 * notifications (REPORT_AVAILABLE too) reach its webhook_url at `inbound`.
 */
export async function adyenMerchant(fake: AdyenFakeServer, inbound: (connectorId: string) => string) {
  const { apiKey, merchantId } = await newMerchant();
  const merchantAccount = `OrchestratorTest${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  fake.addMerchantAccount(merchantAccount);
  const body = { provider: 'adyen', credentials: { ...ADYEN_FAKE_CREDENTIALS, merchant_account: merchantAccount } };
  const res = await invokeHttp(createConnector, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body }));
  expect(res.status).toBe(200);
  fake.notifications.register(inbound(res.body.id));
  return { apiKey, merchantId, connectorId: res.body.id as string, merchantAccount };
}

/**
 * A new merchant connected to the Braintree fake `fake` (a fake of the test's own: its merchant's settlements are this
 * merchant's), whose notifications reach its webhook_url at `inbound`.
 */
export async function braintreeMerchant(fake: BraintreeFake, inbound: (connectorId: string) => string) {
  const { apiKey, merchantId } = await newMerchant();
  const body = { provider: 'braintree', credentials: FAKE_BRAINTREE_CREDENTIALS };
  const res = await invokeHttp(createConnector, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body }));
  expect(res.status).toBe(200);
  fake.notifications.register(inbound(res.body.id));
  return { apiKey, merchantId, connectorId: res.body.id as string };
}

/** A USD payment of `amount` at the merchant's Stripe account, captured (`capture`: how much), with its notifications handled. */
export const capturedAtStripe = (fake: FakeServer, key: string, amount: number, capture = amount) => capturedAt('stripe', fake, key, amount, capture);

/** The same at the merchant's account at `provider` (its fake). */
export async function capturedAt(provider: ProviderName, fake: FakeServer, key: string, amount: number, capture = amount): Promise<string> {
  const paid = await payments.create(key, paymentBody({ amount, routing: provider }));
  expect(paid.body).toMatchObject({ status: 'succeeded', provider });
  expect((await payments.capture(key, paid.body.id, { amount: capture })).status).toBe(200);
  await fake.notifications.idle();
  return paid.body.id as string;
}

/** The card network opens a dispute on the payment at the fake; its notification creates ours. */
export async function disputedAt(fake: FakeServer, key: string, paymentId: string): Promise<void> {
  const res = await invokeHttp(
    openDispute,
    apiEvent({ method: 'POST', path: `/api/test_helpers/payments/${paymentId}/dispute`, headers: bearer(key), body: {} }),
  );
  expect(res.status).toBe(200);
  await fake.notifications.idle();
}

/**
 * The daily job as it runs: its schedule enqueues one message per connector account (the other tests' accounts too,
 * left aside here), and the queue's worker reconciles this account's.
 */
export async function dailyJobFor(connectorId: string): Promise<void> {
  const realSend = reconciliationsQueue.send;
  const sent: ReconciliationMessage[] = [];
  reconciliationsQueue.send = async (messages) => void sent.push(...messages);
  try {
    await dailyReconciliation({}, fakeContext({ name: 'workers/daily-reconciliation' }));
  } finally {
    reconciliationsQueue.send = realSend;
  }
  const mine = sent.filter((m) => m.connector_id === connectorId);
  expect(mine).toHaveLength(1);
  const result = await reconcileAccount(queueEvent(mine, 'reconciliations'), fakeContext({ name: 'workers/reconcile-account' }));
  expect(result).toEqual({ batchItemFailures: [] });
}
