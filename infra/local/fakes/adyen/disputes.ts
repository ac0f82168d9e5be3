/**
 * The Adyen fake's disputes: opened by the test on a captured payment (as the card network would), answered through
 * the Disputes API v30 calls the connector makes, and closed won or lost by the test. Each change is notified:
 * opened → NOTIFICATION_OF_CHARGEBACK (disputeStatus Unresponded), accepted → CHARGEBACK (Accepted: the chargeback is
 * booked and nothing more follows), won → CHARGEBACK_REVERSED, lost → SECOND_CHARGEBACK. A defense sends nothing
 * (Adyen reports the outcome only). The dispute's id is its pspReference, the `disputePspReference` of the API.
 * Business refusals (unknown dispute, closed or accepted, a defense without its required document) are answered like
 * Adyen: HTTP 200 with `disputeServiceResult.success: false` and an `errorMessage`.
 */
import type { FakeDispute } from '../types.ts';
import { evidenceInPdf } from './evidence-reader.ts';
import type { AdyenNotifications, NotificationItem } from './notifications.ts';
import type { DisputeOperation } from './other-contracts.ts';
import type { Movement } from './payouts.ts';

/** The payment a dispute is opened on, as the fake holds it. */
export interface DisputedPayment {
  reference: string;
  merchantAccount: string;
  merchantReference: string;
  currency: string;
  captured: number;
  refunded: number;
}

interface Dispute extends FakeDispute {
  merchantAccount: string;
  merchantReference: string;
  reasonCode: string;
  /** document type codes supplied */
  documents: Set<string>;
  defenseReason?: string;
  /** when it was opened (the chargeback is booked then) and, if won, reversed (epoch ms) */
  openedAt: number;
  wonAt?: number;
}

/** Our reason (DisputeReason) → a Visa reason code (Visa Claims Resolution) the fake opens the chargeback with. */
const REASON_CODES: Readonly<Record<string, string>> = {
  fraudulent: '10.4',
  unrecognized: '10.4',
  duplicate: '12.6.1',
  product_not_received: '13.1',
  subscription_canceled: '13.2',
  product_unacceptable: '13.3',
  credit_not_processed: '13.6',
  general: '13.7',
};

/** The defense reasons the fake offers for every dispute (the contract's example, shortened). */
const DEFENSE_REASONS: ReadonlyArray<{ code: string; documents: ReadonlyArray<{ type: string; requirementLevel: string }> }> = [
  {
    code: 'GoodsNotReturned',
    documents: [
      { type: 'TIDorInvoice', requirementLevel: 'Optional' },
      { type: 'GoodsNotReturned', requirementLevel: 'Required' },
    ],
  },
  {
    code: 'SupplyDefenseMaterial',
    documents: [
      { type: 'TIDorInvoice', requirementLevel: 'Optional' },
      { type: 'DefenseMaterial', requirementLevel: 'Required' },
    ],
  },
];
const CONTENT_TYPES = new Set(['application/pdf', 'image/jpeg', 'image/tiff']);
const DEFENSE_DAYS = 14;

type Result = { status: number; body: Record<string, unknown> };
const done = (extra: Record<string, unknown> = {}): Result => ({ status: 200, body: { ...extra, disputeServiceResult: { success: true } } });
const refused = (errorMessage: string): Result => ({ status: 200, body: { disputeServiceResult: { success: false, errorMessage } } });

export class AdyenDisputes {
  private readonly disputes = new Map<string, Dispute>();

  constructor(
    private readonly notifications: AdyenNotifications,
    private readonly newReference: () => string,
  ) {}

  open(payment: DisputedPayment, reason = 'general'): string {
    const amount = payment.captured - payment.refunded;
    if (amount <= 0) throw new Error(`payment ${payment.reference} has nothing captured left to dispute`);
    const dispute: Dispute = {
      id: this.newReference(),
      paymentReference: payment.reference,
      amount,
      currency: payment.currency,
      status: 'Unresponded',
      evidence: {},
      accepted: false,
      merchantAccount: payment.merchantAccount,
      merchantReference: payment.merchantReference,
      reasonCode: REASON_CODES[reason] ?? REASON_CODES.general!,
      documents: new Set(),
      openedAt: Date.now(),
    };
    this.disputes.set(dispute.id, dispute);
    const defensePeriodEndsAt = `${new Date(Date.now() + DEFENSE_DAYS * 86_400_000).toISOString().slice(0, 19)}+00:00`;
    this.notify(dispute, 'NOTIFICATION_OF_CHARGEBACK', { defensePeriodEndsAt, defendable: 'true' });
    return dispute.id;
  }

  close(id: string, outcome: 'won' | 'lost'): void {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`no dispute ${id}`);
    if (dispute.accepted || dispute.status === 'Won' || dispute.status === 'Lost')
      throw new Error(`dispute ${id} is already closed (${dispute.status})`);
    dispute.status = outcome === 'won' ? 'Won' : 'Lost';
    if (outcome === 'won') dispute.wonAt = Date.now();
    this.notify(dispute, outcome === 'won' ? 'CHARGEBACK_REVERSED' : 'SECOND_CHARGEBACK');
  }

  /** What a settlement batch books of the disputes: each chargeback when opened, and its reversal when won. */
  movements(): Movement[] {
    return [...this.disputes.values()].flatMap((d) => {
      const common = {
        merchantAccount: d.merchantAccount,
        pspReference: d.paymentReference,
        merchantReference: d.merchantReference,
        modificationReference: d.id,
        modificationMerchantReference: '',
        currency: d.currency,
        amount: d.amount,
      };
      const opened: Movement = { ...common, type: 'Chargeback', at: d.openedAt };
      return d.wonAt ? [opened, { ...common, type: 'ChargebackReversed', at: d.wonAt }] : [opened];
    });
  }

  backdate(ms: number): void {
    for (const d of this.disputes.values()) Object.assign(d, { openedAt: d.openedAt - ms, wonAt: d.wonAt && d.wonAt - ms });
  }

  list(): FakeDispute[] {
    return [...this.disputes.values()].map(({ id, paymentReference, amount, currency, status, evidence, accepted }) => ({
      id,
      paymentReference,
      amount,
      currency,
      status,
      evidence: { ...evidence },
      accepted,
    }));
  }

  /** One Disputes API call, its body already checked against the contract and its merchant account authorized. */
  async handle(operation: DisputeOperation, body: Record<string, unknown>): Promise<Result> {
    const dispute = this.disputes.get(body.disputePspReference as string);
    if (!dispute || dispute.merchantAccount !== body.merchantAccountCode) return refused('Could not find dispute');
    if (operation === 'retrieveApplicableDefenseReasons')
      return done({
        defenseReasons: DEFENSE_REASONS.map((reason) => ({
          defenseReasonCode: reason.code,
          satisfied: reason.documents.every((d) => d.requirementLevel !== 'Required' || dispute.documents.has(d.type)),
          defenseDocumentTypes: reason.documents.map((d) => ({
            defenseDocumentTypeCode: d.type,
            requirementLevel: d.requirementLevel,
            available: dispute.documents.has(d.type),
          })),
        })),
      });
    if (dispute.accepted || dispute.status === 'Won' || dispute.status === 'Lost') return refused(`Dispute is closed (${dispute.status})`);
    if (operation === 'acceptDispute') {
      Object.assign(dispute, { accepted: true, status: 'Accepted' });
      this.notify(dispute, 'CHARGEBACK');
      return done();
    }
    if (dispute.status !== 'Unresponded') return refused('Dispute is already defended');
    if (operation === 'supplyDefenseDocument')
      return this.supply(dispute, body.defenseDocuments as { defenseDocumentTypeCode: string; contentType: string; content: string }[]);
    const reason = DEFENSE_REASONS.find((r) => r.code === body.defenseReasonCode);
    if (!reason) return refused(`Defense reason ${String(body.defenseReasonCode)} is not applicable`);
    const missing = reason.documents.filter((d) => d.requirementLevel === 'Required' && !dispute.documents.has(d.type)).map((d) => d.type);
    if (missing.length > 0) return refused(`Required defense documents missing: ${missing.join(', ')}`);
    Object.assign(dispute, { status: 'Responded', defenseReason: reason.code });
    return done();
  }

  private async supply(dispute: Dispute, documents: { defenseDocumentTypeCode: string; contentType: string; content: string }[]): Promise<Result> {
    for (const document of documents) {
      if (!CONTENT_TYPES.has(document.contentType)) return refused(`Unsupported content type ${document.contentType}`);
      if (document.contentType !== 'application/pdf') continue;
      try {
        Object.assign(dispute.evidence, await evidenceInPdf(Buffer.from(document.content, 'base64')));
      } catch {
        return refused('The defense document is not a readable PDF');
      }
    }
    for (const document of documents) dispute.documents.add(document.defenseDocumentTypeCode);
    return done();
  }

  private notify(dispute: Dispute, eventCode: string, extra: Record<string, string> = {}): void {
    const item: NotificationItem = {
      eventCode,
      pspReference: dispute.id,
      originalReference: dispute.paymentReference,
      merchantAccountCode: dispute.merchantAccount,
      merchantReference: dispute.merchantReference,
      amount: { value: dispute.amount, currency: dispute.currency },
      success: 'true',
      paymentMethod: 'visa',
      additionalData: { chargebackReasonCode: dispute.reasonCode, chargebackSchemeCode: 'visa', disputeStatus: dispute.status, ...extra },
    };
    this.notifications.send(item);
  }
}
