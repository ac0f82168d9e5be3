import * as v from 'valibot';
import { exampleId } from '../model/ids.ts';
import { CardNumber, ExpYear, notExpired } from './payments.ts';
import { Email, listQuery, Name } from './common.ts';

const CustomerId = v.pipe(v.string(), v.minLength(1), v.maxLength(255), v.examples([exampleId('customer')]));

export const CreatePaymentMethodBody = v.object({
  type: v.literal('card'),
  card: v.pipe(
    v.object({
      number: CardNumber,
      exp_month: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12), v.examples([12])),
      exp_year: ExpYear,
      cvc: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^\d{3,4}$/, '3 or 4 digits'),
          v.description('kept until the first payment with the card, or an hour'),
          v.examples(['123']),
        ),
      ),
    }),
    v.forward(
      v.check((card) => notExpired(card), 'must not be past: the card has expired'),
      ['exp_year'],
    ),
  ),
  customer_id: v.optional(v.pipe(CustomerId, v.description("one of the merchant's customers: the card is saved for it"))),
  billing_details: v.optional(
    v.object({
      name: v.optional(Name),
      email: v.optional(Email),
      address: v.optional(
        v.object({
          country: v.optional(
            v.pipe(v.string(), v.regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 country code'), v.toUpperCase(), v.examples(['DE'])),
          ),
          postal_code: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(20), v.examples(['10115']))),
        }),
      ),
    }),
  ),
});

/** `POST /api/test_helpers/payment_methods/:id/update`: what the card networks' updater would report. */
export const UpdateTestCardBody = v.pipe(
  v.object({
    exp_month: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12), v.examples([3])),
    exp_year: ExpYear,
    number: v.optional(v.pipe(CardNumber, v.description("the replacement card's number, when the issuer replaced the card"))),
  }),
  v.forward(
    v.check((card) => notExpired(card), 'must not be past: the card has expired'),
    ['exp_year'],
  ),
);

export const AttachPaymentMethodBody = v.object({ customer_id: CustomerId });

export const ListPaymentMethodsQuery = listQuery('paymentMethod', { customer_id: CustomerId });
