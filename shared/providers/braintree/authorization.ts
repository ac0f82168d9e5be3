import type { AuthorizeRequest } from '../types.ts';
import { AUTHORIZE_CREDIT_CARD, AUTHORIZE_PAYMENT_METHOD } from './queries.ts';

/** The authorization mutation for `request` on a payment method (tokenized or vaulted), and its input. */
export interface AuthorizationCall {
  document: string;
  field: 'authorizePaymentMethod' | 'authorizeCreditCard';
  input: Record<string, unknown>;
}

/**
 * How an authorization is flagged: a vaulted token is charged by the shopper (no `paymentInitiator`) or by the
 * merchant (`RECURRING`, or `UNSCHEDULED`); the first charge of a card kept here is the customer's (`RECURRING_FIRST`,
 * vaulted on success); a raw card charged by the merchant is one kept in an external vault (ours), named by the
 * series' first network transaction id.
 */
export function authorizationCall(request: AuthorizeRequest, paymentMethodId: string, transaction: Record<string, unknown>): AuthorizationCall {
  const key = request.idempotencyKey;
  const merchant = request.initiator?.type === 'merchant' ? request.initiator : undefined;
  const initiated = merchant?.recurringModel === 'unscheduled' ? 'UNSCHEDULED' : 'RECURRING';
  const input: Record<string, unknown> = { clientMutationId: key, paymentMethodId, transaction };
  if (request.providerToken) {
    // The shopper's own charge of a vaulted card carries no initiator (the schema's customer-initiated ecommerce).
    if (merchant) transaction.paymentInitiator = initiated;
    return { document: AUTHORIZE_PAYMENT_METHOD, field: 'authorizePaymentMethod', input };
  }
  if (request.storeFor) {
    transaction.paymentInitiator = merchant ? initiated : 'RECURRING_FIRST';
    transaction.vaultPaymentMethodAfterTransacting = { when: 'ON_SUCCESSFUL_TRANSACTION' };
    if (request.storeFor.email) transaction.customerDetails = { email: request.storeFor.email };
  }
  if (!merchant) return { document: AUTHORIZE_PAYMENT_METHOD, field: 'authorizePaymentMethod', input };
  transaction.paymentInitiator = initiated;
  const previous = merchant.networkTransactionId;
  input.options = { externalVault: { status: 'VAULTED', ...(previous ? { verifyingNetworkTransactionId: previous } : {}) } };
  return { document: AUTHORIZE_CREDIT_CARD, field: 'authorizeCreditCard', input };
}
