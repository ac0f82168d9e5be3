import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { PaymentLinkPlaceState, PaymentLinkState } from '../model/state-machines.ts';
import type { Owner, Target } from '../model/targets.ts';
import { db, TABLE } from './client.ts';
import { equalityFilter } from './expressions.ts';
import { Int, nullable, picklistOf, recordReader, StringMap, Text } from './item-schemas.ts';
import { ownedBy, paymentLinkKeys } from './keys.ts';
import { listPage, merchantList, type Page, type PageQuery } from './pagination.ts';

export type AfterCompletion = { type: 'redirect'; url: string } | { type: 'hosted_confirmation'; message: string };

export interface PaymentLinkRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  status: PaymentLinkState;
  line_items: { name: string; amount: number; quantity: number }[];
  /** uppercase ISO 4217 */
  currency: string;
  tax_rate: number;
  subtotal: number;
  tax: number;
  total: number;
  after_completion: AfterCompletion | null;
  /** most payments the link takes (null: no limit) */
  limit: number | null;
  /** payments it took */
  paid_count: number;
  /** places held by payments being made or made (what `limit` bounds): paid ones and those waiting for the shopper's bank */
  claimed_count: number;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

const PaymentLinkItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  status: picklistOf<PaymentLinkState>()(['active', 'inactive']),
  line_items: v.array(v.object({ name: Text, amount: Int, quantity: Int })),
  currency: Text,
  tax_rate: v.number(),
  subtotal: Int,
  tax: Int,
  total: Int,
  after_completion: nullable(
    v.variant('type', [v.object({ type: v.literal('redirect'), url: Text }), v.object({ type: v.literal('hosted_confirmation'), message: Text })]),
  ),
  limit: nullable(Int),
  paid_count: Int,
  claimed_count: Int,
  metadata: StringMap,
  created_at: Text,
  updated_at: Text,
});
const linkOf: (item: Record<string, unknown>) => PaymentLinkRecord = recordReader('payment link', PaymentLinkItem);

/** The place one payment holds on its link (state-machines.ts PAYMENT_LINK_PLACE). */
export interface PaymentLinkPlace {
  link_id: string;
  payment_id: string;
  status: PaymentLinkPlaceState;
  created_at: string;
}
const PlaceItem = v.object({
  link_id: Text,
  payment_id: Text,
  status: picklistOf<PaymentLinkPlaceState>()(['claimed', 'paid', 'released']),
  created_at: Text,
});
const placeOf: (item: Record<string, unknown>) => PaymentLinkPlace = recordReader('payment link place', PlaceItem);

export const paymentLinkTarget = (link: Pick<PaymentLinkRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'payment_link',
  id: link.id,
  owner: { merchant_id: link.merchant_id, livemode: link.livemode },
});

export const placeTarget = (linkId: string, paymentId: string): Target => ({ entity: 'payment_link_place', linkId, paymentId });

/** Any merchant's link, by id alone: for its public page (the id is the link's secret-free address, as at Stripe). */
export async function getPaymentLinkById(linkId: string): Promise<PaymentLinkRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentLinkKeys.item(linkId), ConsistentRead: true }));
  return out.Item ? linkOf(out.Item) : undefined;
}

/** The owner's link, or undefined when missing or another merchant's or mode's. */
export async function getPaymentLink(owner: Owner, linkId: string): Promise<PaymentLinkRecord | undefined> {
  const link = await getPaymentLinkById(linkId);
  return ownedBy(link, owner) ? link : undefined;
}

export async function getPlace(linkId: string, paymentId: string): Promise<PaymentLinkPlace | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: paymentLinkKeys.place(linkId, paymentId), ConsistentRead: true }));
  return out.Item ? placeOf(out.Item) : undefined;
}

/** The owner's links, newest first, optionally only the active or the inactive ones. */
export async function listPaymentLinks(owner: Owner, status: PaymentLinkState | undefined, page: PageQuery): Promise<Page<PaymentLinkRecord>> {
  const result = await listPage(merchantList(paymentLinkKeys, owner, equalityFilter({ status })), page);
  return { data: result.data.map(linkOf), has_more: result.has_more };
}
