import { randomUUID } from 'node:crypto';
import { invokeFunction } from '../invoke.ts';
import { logger } from '../logger.ts';
import type { PayInvoiceInput } from '../schemas/private.ts';
import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { InvoiceRecord } from '../store/invoices.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import * as payments from '../store/payments.ts';
import * as rateLimits from '../store/rate-limits.ts';
import * as servedForms from '../store/served-forms.ts';
import * as settings from '../store/settings.ts';
import type { BrandingRecord } from '../store/settings.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { Merchant } from './auth.ts';
import { Declined, InvalidState, NotFound, OperationInProgress, ProvidersUnavailable, ResourceMissing } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { businessNow, clock } from '../model/clock.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { sendInvoice } from './invoice-delivery.ts';
import { markInvoicePaid, payUrlOf, view } from './invoices.ts';
import { createPayment } from './payment-create.ts';
import { type LinkQuery, verifyPayLink } from './signed-links.ts';
import { retryNow } from './subscriptions.ts';

/**
 * The hosted payment link (docs/api.md "Subscription recovery"): `/hosted/pay/inv_…`, signed and expiring, where the
 * customer pays an open invoice with their saved card or a new one, through 3-D Secure when their bank asks. Reading
 * the page changes nothing (link scanners open it); only the customer's own payment, once approved, pays the invoice.
 */

/** What the page shows: the invoice, the saved card it may be paid with, and what happened. */
export interface PayPage {
  invoice: InvoiceRecord;
  /** the merchant's name, colour and support address, as every shopper page shows them */
  branding: BrandingRecord;
  /** a card typed wrong: each field's error, and what the form keeps (never the number nor the CVC) */
  fieldErrors?: Partial<Record<'number' | 'exp' | 'cvc' | 'email', string>>;
  kept?: { exp?: string; email?: string };
  savedCard: { brand: string; last4: string; exp_month: number; exp_year: number } | null;
  /** a fresh form's id (`<ms>.<random>`): the payment's id comes from it, so sending the form twice pays once */
  formId: string;
  /** the customer's payment just declined, or the provider could not take it: why, in words */
  problem?: string;
  /** the customer's payment waits for their bank (3-D Secure): where they go on */
  bankUrl?: string;
  /** the customer's payment is still being made (a form sent twice): the page looks again in a moment */
  processing?: boolean;
  /** too many cards were declined on this page within the hour: it takes none, and says whom to ask */
  blocked?: boolean;
}

/** After the form: back to the page (which shows the outcome, or sends them on to their bank), or the page again. */
export type PayStep = { go: 'page'; url: string } | { go: 'stay'; page: PayPage };

const actorOf = (invoice: InvoiceRecord): Merchant => ({ id: invoice.merchant_id, credential: 'api_key', livemode: invoice.livemode });

/** What the shopper reads of any decline: the decline code is the merchant's to see (API, timeline), never a card tester's. */
export const DECLINED = 'Your card was declined. Try another card.';

/**
 * At most DECLINES_PER_HOUR declined cards a clock hour (UTC) on one page (an invoice's, a payment link's): a slot of
 * the hour's window is taken atomically before each card is tried (cards sent at once cannot take more) and given
 * back when it paid or was not tried. Then the page takes no card until the next hour and asks the shopper to
 * contact the merchant.
 */
export const DECLINES_PER_HOUR = 5;
export const HOUR_MS = 3_600_000;
export const DECLINE_LIMIT = 'hosted-pay-declines';
export const hourOf = (now: number) => now - (now % HOUR_MS);

/** How long a served form may be posted: a day (an older form's page is served again, with a fresh form). */
export const FORM_TTL_MS = 86_400_000;

/** The API's base URL from the page's own (`…/hosted/pay/inv_…?…`): the 3-D Secure pages hang below it. */
const apiBaseOf = (pageUrl: string, invoiceId: string) => pageUrl.slice(0, pageUrl.indexOf(`/hosted/pay/${invoiceId}`));

async function linkedInvoice(invoiceId: string, query: LinkQuery): Promise<InvoiceRecord> {
  const invoice = (await verifyPayLink(invoiceId, query)) ? await invoices.getInvoiceById(invoiceId) : undefined;
  if (!invoice) throw new NotFound();
  return invoice;
}

/** The card the invoice's subscription renews with, else the customer's default: offered to pay with in one click. */
async function savedCardOf(invoice: InvoiceRecord) {
  const owner = { merchant_id: invoice.merchant_id, livemode: invoice.livemode };
  const subscription = invoice.subscription_id ? await subscriptions.getSubscription(owner, invoice.subscription_id) : undefined;
  const customer = subscription?.payment_method ? undefined : await customers.getCustomer(owner, invoice.customer_id);
  const id = subscription?.payment_method ?? customer?.default_payment_method;
  return id ? await paymentMethods.getPaymentMethod(owner, id) : undefined;
}

/**
 * The page as shown now. A page with forms records the form id it serves (the one write of a GET, which pays nothing):
 * a post is taken only with it. A page whose hour of declined cards is used up shows no form.
 */
async function pageOf(
  invoice: InvoiceRecord,
  said: Pick<PayPage, 'problem' | 'bankUrl' | 'processing' | 'fieldErrors' | 'kept'> = {},
): Promise<PayPage> {
  const now = clock.now();
  const [[saved, declines], branding] = await Promise.all([
    invoice.status === 'paid'
      ? ([undefined, 0] as const)
      : Promise.all([savedCardOf(invoice), rateLimits.readWindow(DECLINE_LIMIT, invoice.id, hourOf(now))]),
    settings.getBranding(invoice.merchant_id),
  ]);
  const savedCard = saved
    ? { brand: saved.card.brand, last4: saved.card.last4, exp_month: saved.card.exp_month, exp_year: saved.card.exp_year }
    : null;
  const page: PayPage = { invoice, branding, savedCard, formId: `${businessNow()}.${randomUUID()}`, ...said };
  if (invoice.status === 'paid' || page.bankUrl || page.processing) return page;
  if (declines >= DECLINES_PER_HOUR) return { ...page, blocked: true };
  await servedForms.recordServedForm(page.formId, invoice.id, now + FORM_TTL_MS);
  return page;
}

/** The payment's origin from the form's id: its time when recent (a form served in the last day), else now. */
export function originOf(formId: string): Origin {
  const [at, seed] = formId.split('.');
  const time = Number(at);
  const recent = Number.isSafeInteger(time) && time <= businessNow() + 60_000 && time > businessNow() - 86_400_000;
  return recent && seed ? { at: time, seed: `pay:${seed}` } : freshOrigin();
}

/**
 * `GET /hosted/pay/inv_…`: the page. Back from their bank (`payment_id`), the customer's approved payment of this
 * invoice pays it (recorded here too, should the payment have been approved without them coming back yet).
 */
export async function payPage(invoiceId: string, query: LinkQuery & { payment_id?: string | undefined }): Promise<PayPage> {
  const invoice = await linkedInvoice(invoiceId, query);
  const payment =
    query.payment_id && invoice.status !== 'paid'
      ? await payments.getStoredPayment({ merchant_id: invoice.merchant_id, livemode: invoice.livemode }, query.payment_id)
      : undefined;
  if (payment?.metadata.invoice_id !== invoice.id) return pageOf(invoice);
  if (payment.status === 'succeeded' || payment.status === 'captured') return pageOf(await paidOnline(invoice, payment.id));
  if (payment.status === 'requires_action' && payment.next_action) return pageOf(invoice, { bankUrl: payment.next_action.redirect_to_url.url });
  if (payment.status === 'failed') return pageOf(invoice, { problem: DECLINED });
  if (payment.status === 'processing') return pageOf(invoice, { processing: true });
  return pageOf(invoice);
}

/** The page again with the fields typed wrong (nothing was charged): each error next to its field. */
export async function payPageWithErrors(invoiceId: string, query: LinkQuery, said: Pick<PayPage, 'fieldErrors' | 'kept'>): Promise<PayPage> {
  return pageOf(await linkedInvoice(invoiceId, query), said);
}

const NO_SAVED_CARD = 'There is no saved card any more: enter a card.';

/** The form: the saved card, or a new one. */
export type PayForm = { formId: string } & ({ saved: true } | { card: { number: string; exp_month: number; exp_year: number; cvc: string } });

/**
 * `POST /hosted/pay/inv_…`: the customer pays the open invoice, shopper present (3-D Secure when their bank asks,
 * back to this page). Only a form this page served is taken, once: sent again (a double click), it leads to the
 * first post's payment, whose id the form's `origin` makes (so that even two posts at once pay once). A form the page
 * never served (or served over a day ago) pays nothing: the page again. The hour's declined cards limit the tries.
 */
export async function payInvoice(invoiceId: string, query: LinkQuery, form: PayForm, pageUrl: string): Promise<PayStep> {
  const invoice = await linkedInvoice(invoiceId, query);
  if (invoice.status === 'paid') return { go: 'page', url: pageUrl };
  const origin = originOf(form.formId);
  const use = await servedForms.takeServedForm(form.formId, invoice.id, clock.now());
  if (use === 'used') return { go: 'page', url: `${pageUrl}&payment_id=${idFor('payment', origin)}` };
  if (use === 'unknown') {
    return { go: 'stay', page: await pageOf(invoice, { problem: 'This page had expired, so nothing was charged: please try again.' }) };
  }
  if ('saved' in form && !(await savedCardOf(invoice))) return { go: 'stay', page: await pageOf(invoice, { problem: NO_SAVED_CARD }) };
  const now = clock.now();
  const hour = hourOf(now);
  if (!(await rateLimits.takeWindowSlot(DECLINE_LIMIT, invoice.id, hour, hour + HOUR_MS, DECLINES_PER_HOUR))) {
    return { go: 'stay', page: await pageOf(invoice) };
  }
  // paid, or not tried (nothing charged): the slot is given back; a decline, a challenge at the bank, an unknown keep it
  const notDeclined = () => rateLimits.returnWindowSlot(DECLINE_LIMIT, invoice.id, hour);
  try {
    // the charge itself runs apart (private/pay-invoice), where the provider's credentials and the vault's cards are
    const card = 'card' in form ? { card: form.card } : {};
    const payment = await invokeFunction<InvoiceCharged>(PAY_INVOICE, { invoice_id: invoice.id, form_id: form.formId, page_url: pageUrl, ...card });
    if (payment.status === 'succeeded' || payment.status === 'captured') await notDeclined();
    return { go: 'page', url: `${pageUrl}&payment_id=${payment.id}` };
  } catch (error) {
    // Declined (the slot stays taken), or no provider could take it (nothing charged): the page again, saying so.
    // The same form's payment already running: the page shows its outcome. Anything else is a 500 page.
    if (error instanceof Declined) return { go: 'stay', page: await pageOf(invoice, { problem: DECLINED }) };
    if (error instanceof OperationInProgress) {
      await notDeclined();
      return { go: 'page', url: `${pageUrl}&payment_id=${idFor('payment', origin)}` };
    }
    if (error instanceof ProvidersUnavailable) {
      await notDeclined();
      const problem = 'The payment could not be made just now and nothing was charged: try again in a few minutes.';
      return { go: 'stay', page: await pageOf(invoice, { problem }) };
    }
    if ('saved' in form && error instanceof ResourceMissing && error.details.param === 'payment_method') {
      await notDeclined();
      return { go: 'stay', page: await pageOf(invoice, { problem: NO_SAVED_CARD }) };
    }
    throw error;
  }
}

/** The private function that charges an invoice for its page (catalog `private/pay-invoice`). */
const PAY_INVOICE = 'private/pay-invoice';
export type InvoiceCharged = { id: string; status: string };

/**
 * `private/pay-invoice`: charges the invoice its page was posted for, with the typed card or the customer's saved one
 * (the page has checked the link, the form and the hour's declines), and an approved payment pays the invoice. A
 * decline or anything else the payment refuses is thrown as the payment throws it; a saved card gone meanwhile is
 * `ResourceMissing`.
 */
export async function chargeInvoice(input: PayInvoiceInput): Promise<InvoiceCharged> {
  const invoice = await invoices.getInvoiceById(input.invoice_id);
  if (!invoice) throw new NotFound();
  const saved = input.card ? undefined : await savedCardOf(invoice);
  if (!input.card && !saved) throw new ResourceMissing('payment_method', 'the customer has no saved card');
  const payment = await createPayment(
    actorOf(invoice),
    {
      amount: invoice.total,
      currency: invoice.currency,
      customer_id: invoice.customer_id,
      payment_method: saved ? saved.id : { type: 'card', card: input.card! },
      capture_method: 'automatic',
      routing: 'smart',
      three_d_secure: 'automatic',
      return_url: input.page_url,
      description: `Invoice ${invoice.number}`,
      metadata: { invoice_id: invoice.id },
    },
    originOf(input.form_id),
    undefined,
    apiBaseOf(input.page_url, invoice.id),
  );
  if (payment.status === 'succeeded' || payment.status === 'captured') await paidOnline(invoice, payment.id);
  return { id: payment.id, status: payment.status };
}

/**
 * The customer's approved payment pays the invoice (once: a second arrival finds it paid), and a renewal waiting for
 * them is completed by the next renewal run (which finds its invoice paid).
 */
async function paidOnline(invoice: InvoiceRecord, paymentId: string): Promise<InvoiceRecord> {
  try {
    await markInvoicePaid(actorOf(invoice), invoice.id, paymentId);
  } catch (error) {
    if (!(error instanceof InvalidState)) throw error;
  }
  if (invoice.subscription_id && invoice.period_start) {
    await retryNow(
      { merchant_id: invoice.merchant_id, livemode: invoice.livemode },
      invoice.subscription_id,
      invoice.period_start,
      'the invoice was paid online',
    );
  }
  return (await invoices.getInvoiceById(invoice.id)) ?? invoice;
}

/** `invoice.payment_action_required`: the invoice with its payment link, for the commit that records the decline. */
export async function paymentActionRequired(invoice: InvoiceRecord, baseUrl: string | undefined) {
  const [shown, hosted_payment_url] = await Promise.all([view(invoice, baseUrl), payUrlOf(invoice.id, baseUrl)]);
  return newEvent(invoice, 'invoice.payment_action_required', { ...shown, hosted_payment_url });
}

/**
 * The past-due notice: the invoice e-mailed to the customer, with its payment link. A failed send is logged and left
 * (the renewal is recorded; the link is also in the event and the merchant may send the invoice again).
 */
export async function sendPaymentLink(invoice: InvoiceRecord, baseUrl: string): Promise<void> {
  await sendInvoice(actorOf(invoice), invoice.id, 'email', baseUrl).catch((error: unknown) =>
    logger.error('The past-due notice was not sent', { invoice_id: invoice.id, error: (error as Error).message }),
  );
}
