import * as v from 'valibot';
import { Id, Livemode, list, Timestamp } from './common.ts';

export const PaymentMethod = v.object({
  id: Id('paymentMethod'),
  object: v.literal('payment_method'),
  type: v.literal('card'),
  card: v.object({
    brand: v.pipe(v.string(), v.examples(['visa'])),
    last4: v.pipe(v.string(), v.length(4), v.examples(['4242'])),
    exp_month: v.pipe(v.number(), v.examples([12])),
    exp_year: v.pipe(v.number(), v.examples([2030])),
    fingerprint: v.pipe(
      v.string(),
      v.description('the same for one card number within a merchant and mode, different across merchants'),
      v.examples(['3f9a1c07b2d4e865']),
    ),
  }),
  billing_details: v.nullable(
    v.object({
      name: v.optional(v.string()),
      email: v.optional(v.string()),
      address: v.optional(v.object({ country: v.optional(v.string()), postal_code: v.optional(v.string()) })),
    }),
  ),
  customer_id: v.nullable(Id('customer')),
  created_at: Timestamp,
  livemode: Livemode,
});

export const PaymentMethodList = list(PaymentMethod);

export const DeletedPaymentMethod = v.object({ id: Id('paymentMethod'), object: v.literal('payment_method'), deleted: v.literal(true) });
