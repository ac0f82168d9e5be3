/**
 * Payment links (docs/api.md "Payment links"): the merchant makes one (line items, tax, a limit, what follows the
 * payment), switches it off and on, and reads it; shoppers pay on its page (payment-link-checkout.ts). Every change
 * is one commit; `active` is the PAYMENT_LINK machine's state.
 */
import type * as v from 'valibot';
import { config } from '../config.ts';
import type { CreatePaymentLinkBody, ListPaymentLinksQuery, UpdatePaymentLinkBody } from '../schemas/payment-links.ts';
import { commit } from '../store/commit.ts';
import * as links from '../store/payment-links.ts';
import type { AfterCompletion, PaymentLinkRecord } from '../store/payment-links.ts';
import { isoNow } from '../model/clock.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { PAYMENT_LINK } from '../model/state-machines.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { checkReturnUrl } from './checkout.ts';
import { invoiceTotals } from './tax.ts';

/** A payment's amount bounds (docs/api.md "Conventions"): what one payment of the link charges. */
const MAX_TOTAL = 99_999_999;

/** The link's page: from the request's base URL, or the configured public one outside a request. */
export const linkUrlOf = (linkId: string, baseUrl: string | undefined): string =>
  `${(baseUrl ?? config.PUBLIC_API_URL ?? '').replace(/\/+$/, '')}/hosted/link/${linkId}`;

export const view = (link: PaymentLinkRecord, baseUrl: string | undefined) => ({
  id: link.id,
  object: 'payment_link' as const,
  url: linkUrlOf(link.id, baseUrl),
  active: link.status === 'active',
  line_items: link.line_items,
  subtotal: link.subtotal,
  tax_rate: link.tax_rate,
  tax: link.tax,
  total: link.total,
  currency: link.currency,
  limit: link.limit,
  paid_count: link.paid_count,
  after_completion: link.after_completion,
  metadata: link.metadata,
  livemode: link.livemode,
  created_at: link.created_at,
});
export type PaymentLinkView = ReturnType<typeof view>;

/** A redirect must go to one of the mode's checkout origins: the service is never an open redirect. */
async function checkAfterCompletion(merchant: Merchant, after: AfterCompletion | undefined, baseUrl: string): Promise<void> {
  if (after?.type === 'redirect') await checkReturnUrl(merchant, after.url, baseUrl, 'after_completion.url');
}

/**
 * Creates an active link; its totals are an invoice's (tax.ts). Its id comes from the request's `origin`: a request
 * run again after a crash (same Idempotency-Key) finds the link its first run stored and answers it.
 */
export async function createPaymentLink(
  merchant: Merchant,
  input: v.InferOutput<typeof CreatePaymentLinkBody>,
  baseUrl: string,
  origin: Origin = freshOrigin(),
): Promise<PaymentLinkView> {
  const totals = invoiceTotals(input.line_items, input.tax_rate);
  if (totals.total < 1 || totals.total > MAX_TOTAL) {
    throw new BadRequest('parameter_invalid', 'line_items', `line_items must add up (with tax) to a total from 1 to ${MAX_TOTAL}`);
  }
  await checkAfterCompletion(merchant, input.after_completion, baseUrl);
  const createdAt = new Date(origin.at).toISOString();
  const link: PaymentLinkRecord = {
    id: idFor('paymentLink', origin),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    status: 'active',
    line_items: input.line_items,
    currency: input.currency,
    tax_rate: input.tax_rate,
    ...totals,
    after_completion: input.after_completion ?? null,
    limit: input.limit ?? null,
    paid_count: 0,
    claimed_count: 0,
    metadata: input.metadata ?? {},
    created_at: createdAt,
    updated_at: createdAt,
  };
  const put = await commit<'exists'>({ writes: [{ create: links.paymentLinkTarget(link), item: { ...link }, refusal: 'exists' }] });
  if (put === 'exists') return getPaymentLink(merchant, link.id, baseUrl);
  return view(link, baseUrl);
}

async function ownLink(merchant: Merchant, linkId: string): Promise<PaymentLinkRecord> {
  const link = await links.getPaymentLink(ownerOf(merchant), linkId);
  if (!link) throw new NotFound();
  return link;
}

export const getPaymentLink = async (merchant: Merchant, linkId: string, baseUrl: string): Promise<PaymentLinkView> =>
  view(await ownLink(merchant, linkId), baseUrl);

/** `active` switches the link (PAYMENT_LINK); `after_completion` and `metadata` are replaced whole. */
export async function updatePaymentLink(
  merchant: Merchant,
  linkId: string,
  changes: v.InferOutput<typeof UpdatePaymentLinkBody>,
  baseUrl: string,
): Promise<PaymentLinkView> {
  const link = await ownLink(merchant, linkId);
  await checkAfterCompletion(merchant, changes.after_completion, baseUrl);
  const set = {
    ...(changes.after_completion ? { after_completion: changes.after_completion } : {}),
    ...(changes.metadata ? { metadata: changes.metadata } : {}),
    updated_at: isoNow(),
  };
  const step = changes.active === undefined ? undefined : PAYMENT_LINK[changes.active ? 'activate' : 'deactivate'];
  await commit({ writes: [{ update: links.paymentLinkTarget(link), ...(step ? { transition: step } : {}), set }] });
  return getPaymentLink(merchant, linkId, baseUrl);
}

export async function listPaymentLinks(merchant: Merchant, query: v.InferOutput<typeof ListPaymentLinksQuery>, baseUrl: string) {
  const { limit, starting_after, ending_before, active } = query;
  const status = active === undefined ? undefined : active === 'true' ? ('active' as const) : ('inactive' as const);
  const page = await links.listPaymentLinks(ownerOf(merchant), status, { limit, starting_after, ending_before });
  return { object: 'list' as const, data: page.data.map((link) => view(link, baseUrl)), has_more: page.has_more };
}
