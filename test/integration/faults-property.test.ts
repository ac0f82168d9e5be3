import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The reconciler reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('faults-property'));
import { providerDeadlines } from '../../shared/providers/index.ts';
import { sandboxBooks } from '../../shared/providers/sandbox.ts';
import { type Fault, moneyProblems, PROVIDERS, resetClock, retryUntilAnswered, runReconciler, withFault } from '../support/faults.ts';
import type { HttpResult } from '../support/lambda.ts';
import { newMerchant } from '../support/merchant.ts';
import { CARDS, freshCard, paymentBody, payments } from '../support/payments.ts';

/**
 * Random interleavings of creates, captures, voids and refunds on one merchant, each under a random fault (a
 * DynamoDB command failing before or after the table applied it, a provider down or dropping its answer after
 * accepting), retried with the same Idempotency-Key or abandoned, then the reconciler: the invariants of
 * `moneyProblems` must hold after every run. Seeded, so a failure reproduces (FAULTS_SEED=<n> replays another seed).
 */
type Command =
  | { op: 'create'; card: 'approved' | 'declined' | 'soft'; amount: number }
  | { op: 'capture'; payment: number; amount: number | null }
  | { op: 'void'; payment: number }
  | { op: 'refund'; payment: number; amount: number | null };

interface Step {
  command: Command;
  fault: Fault;
  /** the client's retry with the same key (under a fault of its own), or none */
  retry: Fault | null;
}

const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'none' }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('dynamodb' as const),
      step: fc.integer({ min: 1, max: 24 }),
      when: fc.constantFrom('before' as const, 'after' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('provider' as const),
      providers: fc.constant(PROVIDERS),
      fault: fc.constantFrom('down' as const, 'accept_then_drop' as const, 'accept_then_timeout' as const, 'accept_then_down' as const),
    }),
  },
);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    op: fc.constant('create' as const),
    card: fc.constantFrom('approved' as const, 'approved' as const, 'declined' as const, 'soft' as const),
    amount: fc.integer({ min: 1_000, max: 5_000 }),
  }),
  fc.record({ op: fc.constant('capture' as const), payment: fc.nat(5), amount: fc.option(fc.integer({ min: 500, max: 1_000 })) }),
  fc.record({ op: fc.constant('void' as const), payment: fc.nat(5) }),
  fc.record({ op: fc.constant('refund' as const), payment: fc.nat(5), amount: fc.option(fc.integer({ min: 100, max: 600 })) }),
);

const stepArb: fc.Arbitrary<Step> = fc.record({ command: commandArb, fault: faultArb, retry: fc.option(faultArb, { nil: null }) });

const CARD_NUMBERS = { approved: () => freshCard(), declined: () => CARDS.genericDecline, soft: () => CARDS.processingError };

beforeAll(() => {
  providerDeadlines.authorizeMs = 200;
  providerDeadlines.operationMs = 200;
});
afterEach(resetClock);

describe('money under random interleavings of operations and faults', () => {
  it('keeps every invariant, whatever the faults, retries and order', { timeout: 900_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 7 }), faultArb, async (steps, reconcilerFault) => {
        // Prepare
        const merchant = await newMerchant();
        const known = new Set<string>();
        const heldBefore = new Set(sandboxBooks.authorizations.keys());

        // Act
        for (const { command, fault, retry } of steps) {
          const ids = [...known];
          const target = 'payment' in command ? ids[command.payment % Math.max(ids.length, 1)] : undefined;
          if (command.op !== 'create' && !target) continue;
          const headers = { 'Idempotency-Key': `prop-${Math.random()}` };
          const request = (): Promise<HttpResult> => {
            if (command.op === 'create')
              return payments.create(merchant.apiKey, paymentBody({ amount: command.amount }, CARD_NUMBERS[command.card]()), headers);
            if (command.op === 'capture')
              return payments.capture(merchant.apiKey, target!, command.amount ? { amount: command.amount } : {}, headers);
            if (command.op === 'void') return payments.void(merchant.apiKey, target!, headers);
            return payments.refund(merchant.apiKey, target!, command.amount ? { amount: command.amount } : {}, headers);
          };
          const { result } = await withFault(fault, request);
          const retried = retry ? (await withFault(retry, () => retryUntilAnswered(request))).result : undefined;
          const answers = [result, retried];
          for (const answer of answers) {
            if (!answer || answer instanceof Error) continue;
            const id = answer.body?.id ?? answer.body?.error?.payment_id;
            if (typeof id === 'string' && id.startsWith('pay_')) known.add(id);
          }
        }
        // The reconciler's first run meets a fault of its own (a provider down, an answer dropped); the next runs clean.
        await withFault(reconcilerFault, runReconciler);
        await runReconciler();

        // Assess: every payment this run touched, including any a provider holds that no answer named
        for (const [reference, held] of sandboxBooks.authorizations) if (!heldBefore.has(reference)) known.add(held.paymentId);
        for (const listed of (await payments.list(merchant.apiKey, { limit: '100' })).body.data) known.add(listed.id);
        expect(await moneyProblems(merchant, [...known]), JSON.stringify({ steps, reconcilerFault })).toEqual([]);
      }),
      { numRuns: Number(process.env.FAULTS_RUNS ?? 25), seed: Number(process.env.FAULTS_SEED ?? 20261123), endOnFailure: true },
    );
  });
});
