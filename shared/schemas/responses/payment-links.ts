/** Payment links as the API returns them (shared/domain/payment-link-admin.ts). */
import * as v from 'valibot';
import { Amount, Currency, Id, list, Livemode, Metadata, Timestamp } from './common.ts';

export const PaymentLink = v.object({
  id: Id('paymentLink'),
  object: v.literal('payment_link'),
  url: v.pipe(
    v.string(),
    v.url(),
    v.description('the page shoppers pay on: every visit is a checkout'),
    v.examples(['https://api.example.com/hosted/link/plink_01jd0qx7m7q6vb8w9k3e2r5t4y']),
  ),
  active: v.boolean(),
  line_items: v.array(
    v.object({
      name: v.pipe(v.string(), v.examples(['T-shirt'])),
      amount: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('per unit, minor units'), v.examples([2000])),
      quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.examples([2])),
    }),
  ),
  subtotal: v.pipe(Amount, v.examples([4000])),
  tax_rate: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.examples([20])),
  tax: v.pipe(v.number(), v.integer(), v.minValue(0), v.examples([800])),
  total: v.pipe(Amount, v.description('subtotal + tax: what each payment charges'), v.examples([4800])),
  currency: Currency,
  limit: v.pipe(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), v.description('null: no limit')),
  paid_count: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('payments the link took')),
  after_completion: v.nullable(
    v.variant('type', [
      v.object({ type: v.literal('redirect'), url: v.string() }),
      v.object({ type: v.literal('hosted_confirmation'), message: v.string() }),
    ]),
  ),
  metadata: Metadata,
  livemode: Livemode,
  created_at: Timestamp,
});

export const PaymentLinkList = list(PaymentLink);
