import * as v from 'valibot';
import { clock } from '../model/clock.ts';
import { luhnValid } from '../model/cards.ts';
import { isCurrency } from '../domain/currency.ts';
import { ROUTING_CHOICES } from '../domain/routing.ts';
import { SANDBOX_APPROVED_CARD } from '../providers/test-cards.ts';
import { PROVIDERS } from '../providers/types.ts';
import { exampleId, idPattern } from '../model/ids.ts';
import { Email, listQuery, Metadata, Name, Phone } from './common.ts';

export const Amount = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(99_999_999), v.examples([4999]));

/** ISO 4217, any case in, uppercase out. */
export const Currency = v.pipe(
  v.string(),
  v.length(3),
  v.check(isCurrency, 'an ISO 4217 currency code, any case'),
  v.toUpperCase(),
  v.examples(['eur']),
);

export const CardNumber = v.pipe(
  v.string(),
  v.regex(/^\d{13,19}$/, 'a card number of 13 to 19 digits'),
  v.check(luhnValid, 'a card number that passes the Luhn check'),
  v.examples([SANDBOX_APPROVED_CARD.number]),
);

/** 4 digits, or 2 read as 20YY. */
export const ExpYear = v.pipe(
  v.number(),
  v.integer(),
  v.check((y) => (y >= 0 && y <= 99) || (y >= 1000 && y <= 9999), 'a 2- or 4-digit year'),
  v.transform((y) => (y < 100 ? 2000 + y : y)),
  v.examples([2030]),
);

export const notExpired = (card: { exp_month: number; exp_year: number }) => {
  const now = new Date(clock.now());
  return card.exp_year * 12 + card.exp_month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
};

const Card = v.pipe(
  v.object({
    number: CardNumber,
    exp_month: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12), v.examples([12])),
    exp_year: ExpYear,
    cvc: v.pipe(v.string(), v.regex(/^\d{3,4}$/, '3 or 4 digits'), v.examples(['123'])),
  }),
  v.forward(
    v.check((card) => notExpired(card), 'must not be past: the card has expired'),
    ['exp_year'],
  ),
);

const Customer = v.object({ email: v.optional(Email), name: v.optional(Name), phone: v.optional(Phone) });

// Any string: an id that is not one of the merchant's customers of this mode (whatever its shape) is `resource_missing`.
const CustomerId = v.optional(
  v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(255),
    v.description("one of the merchant's customers, instead of `customer`: the payment is linked to it"),
    v.examples([exampleId('customer')]),
  ),
);

const paymentEntries = {
  amount: Amount,
  currency: Currency,
  routing: v.optional(v.picklist(ROUTING_CHOICES), 'smart'),
  customer: v.optional(Customer),
  metadata: v.optional(Metadata),
  description: v.optional(v.pipe(v.string(), v.maxLength(1000))),
};

export const CreatePaymentBody = v.object({
  ...paymentEntries,
  payment_method: v.union(
    [
      v.pipe(v.string(), v.regex(idPattern('paymentMethod'), 'a saved payment method id, pm_…'), v.examples([exampleId('paymentMethod')])),
      v.object({ type: v.literal('card'), card: Card }),
    ],
    'a saved payment method id (pm_…), or {type: "card", card: {number, exp_month, exp_year, cvc}}',
  ),
  customer_id: CustomerId,
  three_d_secure: v.optional(
    v.pipe(
      v.picklist(['automatic', 'required']),
      v.description('`automatic`: the shopper authenticates when the issuer asks; `required`: always (needs `return_url`)'),
    ),
    'automatic',
  ),
  return_url: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(2048),
      // whether the URL is allowed depends on the merchant's checkout_origins: checked by the create (url_not_allowed)
      v.description(
        'where the shopper comes back to after authenticating (3-D Secure), with `payment_id`: https on one of the mode’s `checkout_origins` (`PUT /api/settings`), else 400 `url_not_allowed`; without it a payment that needs authentication is declined `authentication_required`',
      ),
      v.examples(['https://shop.example/checkout/done']),
    ),
  ),
  setup_future_usage: v.optional(
    v.pipe(
      v.picklist(['off_session', 'on_session']),
      v.description(
        'keep the card for later charges: it is saved as a payment method (pm_…, shown on the payment) for the customer, and the account that approves it keeps its token',
      ),
    ),
  ),
  capture_method: v.optional(
    v.pipe(
      v.picklist(['manual', 'automatic']),
      v.description('`manual`: authorized (`succeeded`), captured later; `automatic`: captured at once (`captured`)'),
      v.examples(['automatic' as const]),
    ),
    'manual',
  ),
});

/** Same as a create, but card secrets are not needed: only what routing reads (number for brand and BIN). */
export const SimulateRouteBody = v.object({
  ...paymentEntries,
  customer_id: CustomerId,
  payment_method: v.optional(
    v.object({
      type: v.literal('card'),
      card: v.optional(v.object({ number: v.optional(CardNumber) })),
    }),
  ),
});

/** `PUT /api/payments/:id`: only what describes the payment; `metadata` replaces the whole map, null clears `description`. */
export const UpdatePaymentBody = v.object({
  description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000), v.examples(['Order #1042'])))),
  metadata: v.optional(Metadata),
});

export const CaptureBody = v.object({ amount: v.optional(Amount) });

export const RefundBody = v.object({
  amount: v.optional(Amount),
  reason: v.optional(v.pipe(v.picklist(['requested_by_customer', 'duplicate', 'fraudulent']), v.examples(['requested_by_customer' as const]))),
  /** the refund's own; the payment's metadata is unchanged */
  metadata: v.optional(Metadata),
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A real calendar date or an ISO date-time; a bare date means the start (or, for `lte`, the end) of that UTC day. */
const createdBound = (end: boolean) =>
  v.pipe(
    v.string(),
    v.check((s) => DATE.test(s) || DATE_TIME.test(s), 'an ISO date or date-time'),
    v.check((s) => !Number.isNaN(Date.parse(s)) && (!DATE.test(s) || new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)), 'a real date'),
    v.transform((s) => (DATE.test(s) ? Date.parse(`${s}T00:00:00Z`) + (end ? 86_399_999 : 0) : Date.parse(s))),
  );

export const ListPaymentsQuery = listQuery('payment', {
  status: v.optional(v.picklist(['requires_action', 'succeeded', 'captured', 'voided', 'refunded', 'failed'])),
  currency: v.optional(Currency),
  provider: v.optional(v.picklist(PROVIDERS)),
  customer_email: v.optional(Email),
  card_last4: v.optional(v.pipe(v.string(), v.regex(/^\d{4}$/, "the card number's last 4 digits"))),
  'created[gte]': v.optional(createdBound(false)),
  'created[lte]': v.optional(createdBound(true)),
});

/** `GET /api/refunds`: pagination, and optionally one payment's refunds. */
export const ListRefundsQuery = listQuery('refund', {
  payment_id: v.optional(v.pipe(v.string(), v.regex(idPattern('payment'), 'a payment id'))),
});
