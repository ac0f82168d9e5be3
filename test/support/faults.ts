/**
 * Faults for the money paths, injected from outside the code under test: a DynamoDB command that never reaches the
 * table or whose answer is lost after the table applied it (a middleware on the shared client, outermost, so the
 * SDK's own retries are inside it), and the sandbox providers' faults (down, accept then drop, accept then time out).
 * Then the client's retry with the same Idempotency-Key after every lease ran out, and the reconciler.
 */
import { randomUUID } from 'node:crypto';
import { handler as balanceFn } from '../../functions/balance/get.ts';
import { handler as listFn } from '../../functions/payments/list.ts';
import { clock } from '../../shared/model/clock.ts';
import { reconcile } from '../../shared/domain/reconciler.ts';
import { PROVIDERS, type ProviderName } from '../../shared/providers/types.ts';
import { sandboxBooks, type SandboxFault, sandboxSettings } from '../../shared/providers/sandbox.ts';

export { PROVIDERS };
import { db } from '../../shared/store/client.ts';
import { getStoredPayment } from '../../shared/store/payments.ts';
import { expiredOperations } from '../../shared/store/leases.ts';
import { apiEvent, type HttpResult, invokeHttp } from './lambda.ts';
import { bearer, testOwner } from './merchant.ts';

export type Fault =
  | { kind: 'none' }
  | { kind: 'dynamodb'; step: number; when: 'before' | 'after' }
  | { kind: 'provider'; providers: readonly ProviderName[]; fault: SandboxFault | 'down' };

const armed = { fault: { kind: 'none' } as Fault, commands: 0 };

class InjectedCrash extends Error {
  override name = 'InjectedCrash';
}

db.middlewareStack.add(
  (next) => async (args) => {
    const fault = armed.fault;
    const step = ++armed.commands;
    if (fault.kind === 'dynamodb' && fault.step === step && fault.when === 'before')
      throw new InjectedCrash(`DynamoDB unreachable at command ${step}`);
    const out = await next(args);
    if (fault.kind === 'dynamodb' && fault.step === step && fault.when === 'after')
      throw new InjectedCrash(`answer of command ${step} lost after DynamoDB applied it`);
    return out;
  },
  { step: 'initialize', priority: 'high', name: 'injectFaults' },
);

/** Runs `act` with `fault` armed, and counts the DynamoDB commands it sent. */
export async function withFault<T>(fault: Fault, act: () => Promise<T>): Promise<{ result: T | Error; commands: number }> {
  armed.fault = fault;
  armed.commands = 0;
  if (fault.kind === 'provider') {
    for (const provider of fault.providers) {
      if (fault.fault === 'down') sandboxSettings.down.add(provider);
      else sandboxSettings.faults[provider] = fault.fault;
    }
  }
  try {
    return { result: await act().catch((e: Error) => e), commands: armed.commands };
  } finally {
    armed.fault = { kind: 'none' };
    sandboxSettings.down.clear();
    sandboxSettings.faults = {};
  }
}

/** The client's retries with the same key: each after every lease has run out (the clock moves on), until one is not a 409. */
export async function retryUntilAnswered(request: () => Promise<HttpResult>): Promise<HttpResult> {
  for (let attempt = 0; ; attempt++) {
    moveClock(2 * 60_000);
    const res = await request();
    if (res.status !== 409 || attempt === 5) return res;
  }
}

let offset = 0;
export function moveClock(ms: number): void {
  offset += ms;
  clock.now = () => Date.now() + offset;
}

export function resetClock(): void {
  offset = 0;
  clock.now = () => Date.now();
}

/** Runs the reconciler as its schedule would, after every lease has run out. */
export async function runReconciler(): Promise<void> {
  moveClock(2 * 60_000);
  await reconcile(clock.now());
}

/** Operations of the merchant's payments still open (any lease), read from the lease index. */
export async function openOperations(merchantId: string): Promise<string[]> {
  const open = await expiredOperations(clock.now() + 365 * 24 * 60 * 60_000, 1000);
  const record = (o: (typeof open)[number]) =>
    o.entity === 'payment' ? o.payment : o.entity === 'refund' ? o.refund : o.entity === 'dispute' ? o.dispute : o.invoice;
  return open.filter((o) => record(o).merchant_id === merchantId).map((o) => record(o).op.id);
}

/** What the sandbox providers hold for one payment: its authorizations not voided (a double hold is two of them). */
export const heldFor = (paymentId: string) =>
  [...sandboxBooks.authorizations.values()].filter((a) => a.paymentId === paymentId && a.state !== 'voided');

export async function storedPayment(merchantId: string, paymentId: string) {
  return getStoredPayment(testOwner(merchantId), paymentId);
}

/** The merchant's balance summed over available and pending funds of one currency. */
export async function balanceTotal(apiKey: string, currency = 'USD'): Promise<number> {
  const res = await invokeHttp(balanceFn, apiEvent({ method: 'GET', path: '/api/balance', headers: bearer(apiKey) }));
  const sum = (funds: { amount: number; currency: string }[]) => funds.filter((f) => f.currency === currency).reduce((s, f) => s + f.amount, 0);
  return sum(res.body.available) + sum(res.body.pending);
}

export const idempotencyKey = () => ({ 'Idempotency-Key': randomUUID() });

/**
 * The invariants of money under faults, over every payment of a merchant: nothing processing and no operation open,
 * an authorization held at a provider exactly while the payment says so (never two for one payment), the provider's
 * captured and refunded amounts equal ours, refunds within the capture, the list's total equal to the payments
 * stored, and the ledger exact: available + pending = Σ captured − Σ refunded (nothing is settled in these runs).
 * Answers the problems found (empty when all hold).
 */
export async function moneyProblems(merchant: { merchantId: string; apiKey: string }, paymentIds: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  const open = await openOperations(merchant.merchantId);
  if (open.length) problems.push(`operations left open: ${open.join(', ')}`);
  let captured = 0;
  let refunded = 0;
  let stored = 0;
  const byStatus: Record<string, number> = {};
  for (const id of new Set(paymentIds)) {
    const payment = await getStoredPayment(testOwner(merchant.merchantId), id);
    const held = heldFor(id);
    if (!payment) {
      if (held.length) problems.push(`${id}: absent here but held at ${held.map((h) => h.provider).join(', ')}`);
      continue;
    }
    stored++;
    byStatus[payment.status] = (byStatus[payment.status] ?? 0) + 1;
    if (payment.status === 'processing') problems.push(`${id}: still processing`);
    const amountsFit =
      payment.status === 'captured'
        ? payment.amount_captured > 0 && payment.amount_refunded === 0
        : payment.status === 'refunded'
          ? payment.amount_refunded > 0
          : payment.amount_captured === 0 && payment.amount_refunded === 0;
    if (!amountsFit) problems.push(`${id}: ${payment.status} with captured ${payment.amount_captured}, refunded ${payment.amount_refunded}`);
    const holds = ['succeeded', 'captured', 'refunded'].includes(payment.status);
    if (held.length !== (holds ? 1 : 0)) problems.push(`${id}: ${payment.status} but ${held.length} authorizations held`);
    const h = held[0];
    if (h && (h.reference !== payment.provider_reference || h.captured !== payment.amount_captured || h.refunded !== payment.amount_refunded)) {
      problems.push(
        `${id}: provider has captured ${h.captured} refunded ${h.refunded}, we have ${payment.amount_captured} / ${payment.amount_refunded}`,
      );
    }
    if (payment.amount_refunded > payment.amount_captured) problems.push(`${id}: refunded beyond the capture`);
    captured += payment.amount_captured;
    refunded += payment.amount_refunded;
  }
  const totalOf = async (query: Record<string, string>) =>
    (await invokeHttp(listFn, apiEvent({ method: 'GET', path: '/api/payments/list', headers: bearer(merchant.apiKey), query }))).body.total as number;
  const total = await totalOf({});
  if (total !== stored) problems.push(`list total ${total}, payments stored ${stored}`);
  for (const status of ['succeeded', 'failed', 'captured', 'voided', 'refunded']) {
    const counted = await totalOf({ status });
    if (counted !== (byStatus[status] ?? 0)) problems.push(`list total for ${status} ${counted}, stored ${byStatus[status] ?? 0}`);
  }
  const balance = await balanceTotal(merchant.apiKey);
  if (balance !== captured - refunded) problems.push(`balance ${balance} ≠ captured ${captured} − refunded ${refunded}`);
  return problems;
}
