import { DISPUTE_REASONS } from '../../../../shared/providers/types.ts';
import { type Answer, badParam, FakeControlError, missing, ok, refused } from './answers.ts';
import { type Form, nested, text } from './form.ts';
import { fixture, newId, type Notify, type Payments, type StripeObject } from './objects.ts';
import { page } from './reads.ts';

const now = () => Math.floor(Date.now() / 1000);
const RESPONSE_DAYS = 7;
const CLOSED = new Set(['won', 'lost', 'warning_closed', 'prevented']);
/** Stripe's evidence fields (text, and file ids), as its fixture lists them. */
const EVIDENCE_FIELDS = new Set(Object.keys(fixture('dispute', {}).evidence as StripeObject).filter((field) => field !== 'enhanced_evidence'));

/**
 * One account's disputes, opened by the card network on a captured PaymentIntent (`charge.dispute.created`, then
 * `funds_withdrawn`). The merchant updates evidence and submits it (`under_review`) or closes the dispute (conceding:
 * `lost`); the network closes it `won` (funds reinstated) or `lost`. Every change is a `charge.dispute.*` event.
 */
export class StripeDisputes {
  private readonly disputes = new Map<string, StripeObject>();
  /** disputes the merchant closed (conceded) through the API */
  readonly accepted = new Set<string>();

  constructor(
    private readonly payments: Payments,
    private readonly notify: Notify,
  ) {}

  /** The card network opens a dispute on a captured PaymentIntent; `reason` is one of Stripe's. */
  open(paymentIntent: string, reason = 'fraudulent'): string {
    const intent = this.payments.intent(paymentIntent);
    const hold = this.payments.hold(paymentIntent);
    if (!intent || !hold) throw new FakeControlError(`no payment ${paymentIntent}`, 404);
    if (intent.status !== 'succeeded')
      throw new FakeControlError(`payment ${paymentIntent} is ${String(intent.status)}: only a captured one can be disputed`);
    if (!(DISPUTE_REASONS as readonly string[]).includes(reason)) throw new FakeControlError(`reason must be one of ${DISPUTE_REASONS.join(', ')}`);
    const created = now();
    // The example's evidence is empty (every field null) and its details say none was given yet.
    const dispute = fixture('dispute', {
      id: newId('dp'),
      amount: hold.captured,
      charge: intent.latest_charge,
      created,
      currency: intent.currency,
      is_charge_refundable: false,
      livemode: intent.livemode,
      metadata: {},
      payment_intent: paymentIntent,
      reason,
      status: 'needs_response',
    });
    (dispute.evidence_details as StripeObject).due_by = created + RESPONSE_DAYS * 86_400;
    this.disputes.set(String(dispute.id), dispute);
    this.notify('charge.dispute.created', dispute);
    this.notify('charge.dispute.funds_withdrawn', dispute);
    return String(dispute.id);
  }

  /** The card network decides. */
  decide(id: string, outcome: 'won' | 'lost'): void {
    const dispute = this.find(id);
    if (CLOSED.has(String(dispute.status))) throw new FakeControlError(`dispute ${id} is already closed (${String(dispute.status)})`);
    dispute.status = outcome;
    this.notify('charge.dispute.closed', dispute);
    if (outcome === 'won') this.notify('charge.dispute.funds_reinstated', dispute);
  }

  /** `POST /v1/disputes/:id`: evidence fields, submitted to the network with `submit=true`. */
  update(id: string, form: Form): Answer {
    const dispute = this.disputes.get(id);
    if (!dispute) return missing('dispute', id, 404);
    const evidence = nested(form, 'evidence');
    const unknown = Object.keys(evidence).find((field) => !EVIDENCE_FIELDS.has(field));
    if (unknown) return badParam(`evidence[${unknown}]`, `Received unknown parameter: evidence[${unknown}]`);
    if (CLOSED.has(String(dispute.status)))
      return refused({ message: `This dispute is already closed (status: ${String(dispute.status)}) and can no longer be updated.` });
    Object.assign(dispute.evidence as StripeObject, evidence);
    const details = dispute.evidence_details as StripeObject;
    details.has_evidence = true;
    if (text(form, 'submit') === 'true') {
      details.submission_count = Number(details.submission_count) + 1;
      dispute.status = String(dispute.status).startsWith('warning_') ? 'warning_under_review' : 'under_review';
    }
    this.notify('charge.dispute.updated', dispute);
    return ok(dispute);
  }

  /** `POST /v1/disputes/:id/close`: the merchant concedes; Stripe reports the dispute lost. */
  close(id: string): Answer {
    const dispute = this.disputes.get(id);
    if (!dispute) return missing('dispute', id, 404);
    if (CLOSED.has(String(dispute.status))) return refused({ message: `This dispute is already closed (status: ${String(dispute.status)}).` });
    dispute.status = 'lost';
    this.accepted.add(id);
    this.notify('charge.dispute.closed', dispute);
    return ok(dispute);
  }

  retrieve(id: string): Answer {
    const dispute = this.disputes.get(id);
    return dispute ? ok(dispute) : missing('dispute', id, 404);
  }

  /** `GET /v1/disputes?payment_intent=…`: newest first. */
  list(query: Form): Answer {
    const paymentIntent = text(query, 'payment_intent');
    return page(
      '/v1/disputes',
      this.all().filter((dispute) => !paymentIntent || dispute.payment_intent === paymentIntent),
      query,
    );
  }

  /** Every dispute, newest first. */
  all(): StripeObject[] {
    return [...this.disputes.values()].reverse();
  }

  /** Whether `paymentIntent` has a dispute still open (its charge cannot be refunded meanwhile). */
  hasOpen(paymentIntent: string): boolean {
    return this.all().some((dispute) => dispute.payment_intent === paymentIntent && !CLOSED.has(String(dispute.status)));
  }

  has(id: string): boolean {
    return this.disputes.has(id);
  }

  private find(id: string): StripeObject {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new FakeControlError(`no dispute ${id}`, 404);
    return dispute;
  }
}
