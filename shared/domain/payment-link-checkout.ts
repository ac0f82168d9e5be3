/**
 * A payment link's page (docs/api.md "Payment links"): `/hosted/link/plink_…`, where every visit is a checkout. The
 * shopper types a card (and may give an e-mail for the receipt); their payment is captured at once, through 3-D
 * Secure when their bank asks, and carries `payment_link_id`. Before a card is charged the payment claims a place on
 * the link, in one conditional write with the link still active and under its `limit`: of two shoppers racing for the
 * last place, one pays and the other reads that it is sold out; a declined payment gives its place back. Reading the
 * page changes nothing but the form it serves (as the invoice's page, payment-links.ts, whose pieces this reuses).
 */
import { randomUUID } from 'node:crypto';
import { invokeFunction } from '../invoke.ts';
import { logger } from '../logger.ts';
import { emailSender } from '../messaging/email.ts';
import type { PayLinkInput } from '../schemas/private.ts';
import { commit } from '../store/commit.ts';
import * as links from '../store/payment-links.ts';
import type { PaymentLinkRecord } from '../store/payment-links.ts';
import * as payments from '../store/payments.ts';
import type { StoredPayment as PaymentRecord } from '../store/payments.ts';
import * as rateLimits from '../store/rate-limits.ts';
import * as servedForms from '../store/served-forms.ts';
import * as settings from '../store/settings.ts';
import type { BrandingRecord } from '../store/settings.ts';
import { businessNow, clock } from '../model/clock.ts';
import { Declined, NotFound, OperationInProgress, ProvidersUnavailable } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { idFor } from '../model/ids.ts';
import { PAYMENT_LINK_PLACE } from '../model/state-machines.ts';
import type { Merchant } from './auth.ts';
import { view } from './payment-link-admin.ts';
import { createPayment } from './payment-create.ts';
import { DECLINE_LIMIT, DECLINED, DECLINES_PER_HOUR, FORM_TTL_MS, HOUR_MS, hourOf, originOf } from './payment-links.ts';
import { formatMoney } from './tax.ts';

/** What a shopper reads of a paid payment: the receipt. */
export interface Receipt {
  payment_id: string;
  amount: number;
  currency: string;
  brand: string;
  last4: string;
  paid_at: string;
  email: string | null;
}

/** The fields of the card form a shopper may get wrong, each with its error shown next to it. */
export type FieldName = 'number' | 'exp' | 'cvc' | 'email';

export interface LinkPage {
  link: PaymentLinkRecord;
  branding: BrandingRecord;
  /** a fresh form's id: the payment's id comes from it, so sending the form twice pays once (absent: no form) */
  formId?: string;
  /** why the last try did not pay, in words (never a decline code) */
  problem?: string;
  fieldErrors?: Partial<Record<FieldName, string>>;
  /** what the form keeps after an error: never the card number nor the CVC, which no answer carries */
  kept?: { exp?: string; email?: string };
  /** the page takes no payment: switched off, every place taken, or too many declined cards this hour */
  closed?: 'inactive' | 'sold_out' | 'blocked';
  bankUrl?: string;
  processing?: boolean;
  receipt?: Receipt;
}

/** After a visit or a post: the page, back to the page (GET), or on to the merchant's page (after_completion). */
export type LinkStep = { go: 'page'; url: string } | { go: 'away'; url: string } | { go: 'stay'; page: LinkPage };

const actorOf = (link: PaymentLinkRecord): Merchant => ({ id: link.merchant_id, credential: 'api_key', livemode: link.livemode });
const ownerOfLink = (link: PaymentLinkRecord) => ({ merchant_id: link.merchant_id, livemode: link.livemode });
const apiBaseOf = (pageUrl: string) => pageUrl.slice(0, pageUrl.indexOf('/hosted/link/'));
const paid = (payment: Pick<PaymentRecord, 'status'>) => payment.status === 'succeeded' || payment.status === 'captured';

async function linkOf(linkId: string): Promise<PaymentLinkRecord> {
  const link = await links.getPaymentLinkById(linkId);
  if (!link) throw new NotFound();
  return link;
}

/** The page as shown now: closed (and why), or with a fresh form its post must bring back. */
async function pageOf(link: PaymentLinkRecord, said: Omit<LinkPage, 'link' | 'branding'> = {}): Promise<LinkPage> {
  const now = clock.now();
  const [branding, declines] = await Promise.all([
    settings.getBranding(link.merchant_id),
    rateLimits.readWindow(DECLINE_LIMIT, link.id, hourOf(now)),
  ]);
  const page: LinkPage = { link, branding, ...said };
  if (page.receipt || page.bankUrl || page.processing) return page;
  if (link.status !== 'active') return { ...page, closed: 'inactive' };
  if (link.limit !== null && link.claimed_count >= link.limit) return { ...page, closed: 'sold_out' };
  if (declines >= DECLINES_PER_HOUR) return { ...page, closed: 'blocked' };
  const formId = `${businessNow()}.${randomUUID()}`;
  await servedForms.recordServedForm(formId, link.id, now + FORM_TTL_MS);
  return { ...page, formId };
}

const receiptOf = (payment: PaymentRecord): Receipt => ({
  payment_id: payment.id,
  amount: payment.amount,
  currency: payment.currency,
  brand: payment.card.brand,
  last4: payment.card.last4,
  paid_at: payment.updated_at,
  email: payment.customer?.email ?? null,
});

/**
 * `GET /hosted/link/plink_…`: the checkout. Back from their bank or from paying (`payment_id`): the receipt (or the
 * merchant's page, after_completion), the bank again, or the form with why it did not pay.
 */
export async function visitLink(linkId: string, paymentId: string | undefined, pageUrl: string): Promise<LinkStep> {
  const link = await linkOf(linkId);
  const payment = paymentId ? await payments.getStoredPayment(ownerOfLink(link), paymentId) : undefined;
  if (!payment || payment.payment_link_id !== link.id) return { go: 'stay', page: await pageOf(link) };
  if (paid(payment)) {
    const settled = await settlePaid(link, payment, apiBaseOf(pageUrl));
    if (settled.after_completion?.type === 'redirect') {
      const away = new URL(settled.after_completion.url);
      away.searchParams.set('payment_id', payment.id);
      return { go: 'away', url: away.href };
    }
    return { go: 'stay', page: await pageOf(settled, { receipt: receiptOf(payment) }) };
  }
  if (payment.status === 'requires_action' && payment.next_action)
    return { go: 'stay', page: await pageOf(link, { bankUrl: payment.next_action.redirect_to_url.url }) };
  if (payment.status === 'processing') return { go: 'stay', page: await pageOf(link, { processing: true }) };
  // failed at the bank (or voided): its place goes back, and the shopper may try another card
  const released = await releasePlace(link, payment.id);
  return { go: 'stay', page: await pageOf(released, { problem: DECLINED }) };
}

/** What the form brought, checked (schemas/hosted.ts `checkLinkForm`). */
export type LinkForm = { formId: string } & (
  | { card: { number: string; exp_month: number; exp_year: number; cvc: string }; email?: string }
  | { errors: Partial<Record<FieldName, string>>; kept: { exp?: string; email?: string } }
);

/**
 * `POST /hosted/link/plink_…`: the shopper pays. A field typed wrong is shown next to the field and charges nothing
 * (the form kept, but for the card number and CVC). Only a form this page served is taken, once; sent again, it
 * leads to the first post's payment. The hour's declined cards limit the tries, the link's places the payments.
 */
export async function payLink(linkId: string, form: LinkForm, pageUrl: string): Promise<LinkStep> {
  const link = await linkOf(linkId);
  const paymentId = idFor('payment', originOf(form.formId));
  const back = { go: 'page' as const, url: `${pageUrl}?payment_id=${paymentId}` };
  if ('errors' in form) return { go: 'stay', page: await pageOf(link, { fieldErrors: form.errors, kept: form.kept }) };
  const use = await servedForms.takeServedForm(form.formId, link.id, clock.now());
  if (use === 'used') return back;
  if (use === 'unknown')
    return { go: 'stay', page: await pageOf(link, { problem: 'This page had expired, so nothing was charged: please try again.' }) };
  const hour = hourOf(clock.now());
  if (!(await rateLimits.takeWindowSlot(DECLINE_LIMIT, link.id, hour, hour + HOUR_MS, DECLINES_PER_HOUR)))
    return { go: 'stay', page: await pageOf(link) };
  const notDeclined = () => rateLimits.returnWindowSlot(DECLINE_LIMIT, link.id, hour);
  if (!(await claimPlace(link, paymentId))) {
    await notDeclined();
    return { go: 'stay', page: await pageOf(await linkOf(linkId)) };
  }
  try {
    // the charge runs apart (private/pay-link), where the provider's credentials and the vault are
    const input: PayLinkInput = {
      link_id: link.id,
      form_id: form.formId,
      page_url: pageUrl,
      card: form.card,
      ...(form.email ? { email: form.email } : {}),
    };
    const payment = await invokeFunction<{ id: string; status: string }>(PAY_LINK, input);
    if (payment.status !== 'requires_action') await notDeclined();
    return back;
  } catch (error) {
    if (error instanceof OperationInProgress) return back;
    if (error instanceof Declined) return { go: 'stay', page: await pageOf(await releasePlace(link, paymentId), { problem: DECLINED }) };
    await notDeclined();
    if (error instanceof ProvidersUnavailable) {
      const problem = 'The payment could not be made just now and nothing was charged: try again in a few minutes.';
      return { go: 'stay', page: await pageOf(await releasePlace(link, paymentId), { problem }) };
    }
    throw error;
  }
}

const PAY_LINK = 'private/pay-link';

/**
 * `private/pay-link`: charges the link's total with the typed card, captured at once, 3-D Secure when the bank asks
 * (back to the page). A paid payment is counted on the link at once. A decline is thrown as the payment throws it.
 */
export async function chargeLink(input: PayLinkInput): Promise<{ id: string; status: string }> {
  const link = await linkOf(input.link_id);
  const payment = await createPayment(
    actorOf(link),
    {
      amount: link.total,
      currency: link.currency,
      payment_method: { type: 'card', card: input.card! },
      ...(input.email ? { customer: { email: input.email } } : {}),
      capture_method: 'automatic',
      routing: 'smart',
      three_d_secure: 'automatic',
      return_url: input.page_url,
      description: link.line_items
        .map((item) => `${item.quantity} × ${item.name}`)
        .join(', ')
        .slice(0, 500),
      metadata: {},
      payment_link_id: link.id,
    },
    originOf(input.form_id),
    undefined,
    apiBaseOf(input.page_url),
  );
  if (paid(payment)) {
    const stored = await payments.getStoredPayment(ownerOfLink(link), payment.id);
    if (stored) await settlePaid(link, stored, apiBaseOf(input.page_url));
  }
  return { id: payment.id, status: payment.status };
}

/** The payment's place on the link, taken while the link is active and has one free (false: it is not). */
async function claimPlace(link: PaymentLinkRecord, paymentId: string): Promise<boolean> {
  const result = await commit<'exists' | 'closed'>({
    writes: [
      {
        create: links.placeTarget(link.id, paymentId),
        item: { link_id: link.id, payment_id: paymentId, status: 'claimed', created_at: new Date(clock.now()).toISOString() },
        refusal: 'exists',
      },
      {
        update: links.paymentLinkTarget(link),
        inStates: ['active'],
        ...(link.limit === null ? {} : { below: { claimed_count: link.limit } }),
        add: { claimed_count: 1 },
        refusal: 'closed',
      },
    ],
  });
  return result !== 'closed';
}

/** A failed payment gives its place back (once); the link as it is now. */
async function releasePlace(link: PaymentLinkRecord, paymentId: string): Promise<PaymentLinkRecord> {
  await commit({
    writes: [
      { update: links.placeTarget(link.id, paymentId), transition: PAYMENT_LINK_PLACE.release },
      { update: links.paymentLinkTarget(link), add: { claimed_count: -1 } },
    ],
  });
  return (await links.getPaymentLinkById(link.id)) ?? link;
}

/**
 * A paid payment is counted on its link once (the place's `pay` transition), with `payment_link.paid` in the same
 * commit; the receipt is e-mailed when the shopper gave an address. The link as it is now.
 */
async function settlePaid(link: PaymentLinkRecord, payment: PaymentRecord, baseUrl: string): Promise<PaymentLinkRecord> {
  const counted = { ...link, paid_count: link.paid_count + 1 };
  const event = newEvent(ownerOfLink(link), 'payment_link.paid', { ...view(counted, baseUrl), payment_id: payment.id });
  const result = await commit({
    writes: [
      { update: links.placeTarget(link.id, payment.id), transition: PAYMENT_LINK_PLACE.pay },
      { update: links.paymentLinkTarget(link), add: { paid_count: 1 } },
    ],
    events: [event],
  });
  if (result === 'committed' && payment.customer?.email) await sendReceipt(link, payment);
  return (await links.getPaymentLinkById(link.id)) ?? link;
}

async function sendReceipt(link: PaymentLinkRecord, payment: PaymentRecord): Promise<void> {
  const branding = await settings.getBranding(link.merchant_id);
  const lines = link.line_items.map((item) => `${item.quantity} × ${item.name}  ${formatMoney(item.amount * item.quantity, link.currency)}`);
  const text = [
    `Thank you for your payment to ${branding.business_name}.`,
    '',
    ...lines,
    ...(link.tax > 0 ? [`Tax (${link.tax_rate} %)  ${formatMoney(link.tax, link.currency)}`] : []),
    `Total paid  ${formatMoney(payment.amount, payment.currency)}`,
    `Card  ${payment.card.brand} •••• ${payment.card.last4}`,
    `Date  ${payment.updated_at.slice(0, 10)}`,
    `Receipt  ${payment.id}`,
    ...(branding.support_email ? ['', `Questions? Write to ${branding.support_email}.`] : []),
  ].join('\n');
  await emailSender
    .send({ to: payment.customer!.email!, subject: `Your receipt from ${branding.business_name}`, text })
    .catch((error: unknown) => logger.error('The receipt was not sent', { payment_id: payment.id, error: (error as Error).message }));
}
