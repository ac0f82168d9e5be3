import { feeFor } from '../../../../shared/providers/fees.ts';
import { type Answer, badParam, FakeControlError, missing } from './answers.ts';
import { type Form, nested, text } from './form.ts';
import { fixture, newId, type StripeObject } from './objects.ts';
import type { PayoutFaults } from '../payout-faults.ts';
import { page } from './reads.ts';

const now = () => Math.floor(Date.now() / 1000);
/** Stripe's dispute fee (USD 15.00; the same minor units in any currency here). */
export const STRIPE_DISPUTE_FEE = 1500;
const PAYOUT_DAYS = 2;

/** What one account's books hold that a payout pays out: captured charges, refunds, disputes. */
export interface PayoutSources {
  /** each captured PaymentIntent's Charge (`amount_captured`, `currency`), and when it was captured (epoch seconds) */
  charges(): Array<{ charge: StripeObject; capturedAt: number }>;
  /** every refund, any status */
  refunds(): StripeObject[];
  /** every dispute, any status */
  disputes(): StripeObject[];
}

export type { PayoutFaults } from '../payout-faults.ts';

interface Line {
  /** what it pays out once: `charge ch_…`, `refund re_…`, `refund_failure re_…`, `dispute dp_…`, `dispute_reversal dp_…` */
  key: string;
  type: string;
  category: string;
  source: string;
  amount: number;
  fee: number;
  currency: string;
  /** when the money moved (epoch seconds): the transaction's `created` */
  at: number;
}

/**
 * One account's balance transactions and payouts, as Stripe makes them: a payout (one per currency) carries every
 * money movement since the previous one, each a balance transaction (created when the money moved) with Stripe's fee (2.9 % + 30 on a charge, the
 * dispute fee on a dispute, none on a refund), plus the payout's own transaction. Movements are read from the books
 * when the payout is made.
 */
export class StripePayouts {
  private readonly paidOut = new Set<string>();
  private readonly payouts = new Map<string, StripeObject>();
  private readonly transactions = new Map<string, StripeObject[]>();

  constructor(
    private readonly sources: PayoutSources,
    private readonly livemode: boolean,
  ) {}

  /** Pays out everything not paid out yet, one payout per currency (oldest charge line first gets the faults). */
  payOut(faults: PayoutFaults = {}): StripeObject[] {
    const lines = this.newLines();
    const currencies = [...new Set(lines.map((line) => line.currency))].sort();
    return currencies.map((currency, i) =>
      this.payout(
        currency,
        lines.filter((l) => l.currency === currency),
        i === 0 ? faults : {},
      ),
    );
  }

  private payout(currency: string, lines: Line[], faults: PayoutFaults): StripeObject {
    const created = now();
    const id = newId('po');
    const target = lines.find((line) => line.type === 'charge');
    if (target) {
      target.amount += faults.line_amount_delta ?? 0;
      target.fee += faults.fee_delta ?? 0;
    }
    const listed = faults.drop_line ? lines.filter((line) => line !== target) : lines;
    const transactions = listed.map((line) => this.transaction(line, created));
    const total = transactions.reduce((sum, t) => sum + Number(t.net), 0) + (faults.total_delta ?? 0);
    const own = this.transaction({ key: '', type: 'payout', category: 'payout', source: id, amount: -total, fee: 0, currency, at: created }, created);
    const payout = fixture('payout', {
      id,
      amount: total,
      arrival_date: created + PAYOUT_DAYS * 86_400,
      automatic: true,
      balance_transaction: own.id,
      created,
      currency,
      description: 'STRIPE PAYOUT',
      livemode: this.livemode,
      metadata: {},
      reconciliation_status: 'completed',
      status: 'paid',
    });
    for (const line of lines) this.paidOut.add(line.key);
    this.payouts.set(id, payout);
    this.transactions.set(id, [...transactions.reverse(), own]);
    return payout;
  }

  private transaction(line: Line, created: number): StripeObject {
    const feeDetails = line.fee
      ? [{ amount: line.fee, application: null, currency: line.currency, description: feeWords(line), type: 'stripe_fee' }]
      : [];
    return fixture('balance_transaction', {
      id: newId('txn'),
      amount: line.amount,
      available_on: created,
      created: line.at,
      currency: line.currency,
      description: null,
      fee: line.fee,
      fee_details: feeDetails,
      net: line.amount - line.fee,
      reporting_category: line.category,
      source: line.source,
      status: 'available',
      type: line.type,
    });
  }

  /** Every movement of the books not yet paid out, oldest kind first: charges, refunds, their failures, disputes. */
  private newLines(): Line[] {
    const lines: Line[] = [];
    for (const { charge, capturedAt } of this.sources.charges()) {
      const amount = Number(charge.amount_captured);
      if (amount > 0) lines.push(line('charge', 'charge', charge, amount, feeFor('stripe', amount), capturedAt));
    }
    for (const refund of this.sources.refunds()) {
      const at = Number(refund.created);
      if (refund.status !== 'failed' || this.paidOut.has(`refund ${String(refund.id)}`))
        lines.push(line('refund', 'refund', refund, -Number(refund.amount), 0, at));
      if (refund.status === 'failed') lines.push(line('refund_failure', 'refund_failure', refund, Number(refund.amount), 0, now()));
    }
    for (const dispute of this.sources.disputes()) {
      lines.push(line('adjustment', 'dispute', dispute, -Number(dispute.amount), STRIPE_DISPUTE_FEE, Number(dispute.created)));
      if (dispute.status === 'won') lines.push(line('adjustment', 'dispute_reversal', dispute, Number(dispute.amount), 0, now()));
    }
    return lines.filter((l) => !this.paidOut.has(l.key));
  }

  /** `GET /v1/payouts`: newest first, `created[gt|gte|lt|lte]`, `limit`, `starting_after`. */
  list(query: Form): Answer {
    const created = nested(query, 'created');
    const bound = (key: string) => (text(created, key) === undefined ? undefined : Number(text(created, key)));
    const [gte, gt, lte, lt] = ['gte', 'gt', 'lte', 'lt'].map(bound);
    const matching = [...this.payouts.values()].reverse().filter((p) => {
      const at = Number(p.created);
      return (gte === undefined || at >= gte) && (gt === undefined || at > gt) && (lte === undefined || at <= lte) && (lt === undefined || at < lt);
    });
    return page('/v1/payouts', matching, query);
  }

  /** `GET /v1/balance_transactions?payout=po_…`: the payout's transactions, newest first, its own last. */
  transactionsOf(query: Form, expandSource: (source: string) => StripeObject | undefined): Answer {
    const payout = text(query, 'payout');
    if (!payout) return badParam('payout', 'This fake lists balance transactions by payout only.');
    const listed = this.transactions.get(payout);
    if (!listed) return missing('payout', payout);
    const expand = Array.isArray(query.expand) && query.expand.includes('data.source');
    const shown = listed.map((t) => (expand ? { ...t, source: expandSource(String(t.source)) ?? t.source } : t));
    return page('/v1/balance_transactions', shown, query);
  }

  /** Control: whether the account has anything to pay out. */
  assertSomething(): void {
    if (this.newLines().length === 0) throw new FakeControlError('nothing to pay out since the last payout');
  }
}

const line = (type: string, category: string, object: StripeObject, amount: number, fee: number, at: number): Line => ({
  key: `${category} ${String(object.id)}`,
  type,
  category,
  source: String(object.id),
  amount,
  fee,
  currency: String(object.currency),
  at,
});

const feeWords = (line: Line) => (line.category === 'dispute' ? 'Dispute fee' : 'Stripe processing fees');
