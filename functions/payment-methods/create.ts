import { createPaymentMethod } from '../../shared/domain/payment-methods.ts';
import { http } from '../../shared/http/index.ts';
import { CreatePaymentMethodBody } from '../../shared/schemas/payment-methods.ts';
import { PaymentMethod } from '../../shared/schemas/responses/payment-methods.ts';

/** The one endpoint a publishable key may call: a shopper's browser saves a card (limited per key and client IP, and per key). */
export const handler = http(
  {
    auth: 'publishable',
    permission: 'customers:write',
    body: CreatePaymentMethodBody,
    idempotent: true,
    rateLimit: { name: 'payment-methods-create', limit: 30, per: 'publishable key and ip', perPublishableKey: 600, concurrent: true },
    response: PaymentMethod,
  },
  async ({ merchant, body, origin, admitted }) => createPaymentMethod(merchant, body, origin, admitted),
);
