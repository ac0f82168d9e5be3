import { type Answer, badParam, FakeControlError, missing, ok, refused } from './answers.ts';
import { type Form, nested, text } from './form.ts';
import { fixture, newId, type Notify, type Payments, type StripeObject } from './objects.ts';
import { page } from './reads.ts';

const now = () => Math.floor(Date.now() / 1000);

/**
 * One account's refunds. They succeed at once (`refund.created` and `charge.refunded`) unless `pending` is on: then
 * they stay `pending` until `settle` (`refund.updated`) or `fail` (`refund.failed`). A failed refund, even one that had
 * succeeded (a late failure at the card network), gives its amount back to the charge.
 */
export class StripeRefunds {
  private readonly refunds = new Map<string, StripeObject>();
  pending = false;

  constructor(
    private readonly payments: Payments,
    private readonly notify: Notify,
  ) {}

  /** `POST /v1/refunds` for a captured PaymentIntent: several, together at most what was captured. */
  create(form: Form): Answer {
    const id = text(form, 'payment_intent');
    if (!id) return badParam('payment_intent', 'You must pass either a charge or a payment_intent to refund.');
    const intent = this.payments.intent(id);
    const hold = this.payments.hold(id);
    if (!intent || !hold) return missing('payment_intent', id);
    if (intent.status !== 'succeeded')
      return refused({
        code: 'payment_intent_unexpected_state',
        message: 'This PaymentIntent does not have a successful charge to refund.',
        payment_intent: intent,
      });
    if (this.payments.disputedNow(id))
      return refused({ code: 'charge_disputed', message: `Charge ${intent.latest_charge} has been charged back; cannot issue a refund.` });
    const remaining = hold.captured - hold.refunded;
    if (remaining === 0) return refused({ code: 'charge_already_refunded', message: `Charge ${intent.latest_charge} has already been refunded.` });
    const amount = text(form, 'amount') === undefined ? remaining : Number(text(form, 'amount'));
    if (!Number.isInteger(amount) || amount < 1) return badParam('amount', 'Invalid positive integer');
    if (amount > remaining)
      return refused({
        code: 'amount_too_large',
        param: 'amount',
        message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`,
      });
    hold.refunded += amount;
    const refund = fixture('refund', {
      id: newId('re'),
      amount,
      charge: intent.latest_charge,
      created: now(),
      currency: intent.currency,
      metadata: nested(form, 'metadata'),
      payment_intent: id,
      reason: text(form, 'reason') ?? null,
      status: this.pending ? 'pending' : 'succeeded',
    });
    this.refunds.set(String(refund.id), refund);
    this.notify('refund.created', refund);
    if (refund.status === 'succeeded') this.notify('charge.refunded', this.payments.charge(id));
    return ok(refund);
  }

  retrieve(id: string): Answer {
    const refund = this.refunds.get(id);
    return refund ? ok(refund) : missing('refund', id, 404);
  }

  /** `GET /v1/refunds?payment_intent=…`: newest first. */
  list(query: Form): Answer {
    return page('/v1/refunds', this.of(text(query, 'payment_intent')), query);
  }

  /** The refunds of `paymentIntent` (every one without it), newest first. */
  of(paymentIntent?: string): StripeObject[] {
    return [...this.refunds.values()].reverse().filter((refund) => !paymentIntent || refund.payment_intent === paymentIntent);
  }

  has(id: string): boolean {
    return this.refunds.has(id);
  }

  /** A pending refund goes through. */
  settle(id: string): void {
    const refund = this.find(id);
    if (refund.status !== 'pending') throw new FakeControlError(`refund ${id} is ${refund.status}, not pending`);
    refund.status = 'succeeded';
    this.notify('refund.updated', refund);
    this.notify('charge.refunded', this.payments.charge(String(refund.payment_intent)));
  }

  /** A pending or succeeded refund fails at the card network: its amount is the charge's again. */
  fail(id: string): void {
    const refund = this.find(id);
    if (refund.status !== 'pending' && refund.status !== 'succeeded') throw new FakeControlError(`refund ${id} is ${refund.status}`);
    Object.assign(refund, { status: 'failed', failure_reason: 'expired_or_canceled_card' });
    const hold = this.payments.hold(String(refund.payment_intent));
    if (hold) hold.refunded -= Number(refund.amount);
    this.notify('refund.failed', refund);
  }

  private find(id: string): StripeObject {
    const refund = this.refunds.get(id);
    if (!refund) throw new FakeControlError(`no refund ${id}`, 404);
    return refund;
  }
}
