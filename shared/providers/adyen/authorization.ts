import type { AuthorizeRequest, MappedFailure } from '../types.ts';
import { adyenValue } from './amounts.ts';
import type { components } from './checkout-v72.d.ts';
import { adyenKey } from './client.ts';
import { authenticationFields } from './three-d-secure.ts';

type PaymentRequest = components['schemas']['PaymentRequest'];
type PaymentResponse = components['schemas']['PaymentResponse'];

const TOKEN_SEPARATOR = ':';
/** The provider token of a stored card: Adyen's stored payment method id and the shopper reference it belongs to. */
export const providerTokenOf = (storedPaymentMethodId: string, shopperReference: string) =>
  `${storedPaymentMethodId}${TOKEN_SEPARATOR}${shopperReference}`;
export function parseProviderToken(token: string): { storedPaymentMethodId: string; shopperReference: string } | undefined {
  const at = token.indexOf(TOKEN_SEPARATOR);
  if (at <= 0 || at === token.length - 1) return undefined;
  return { storedPaymentMethodId: token.slice(0, at), shopperReference: token.slice(at + 1) };
}

/**
 * The /payments body: a raw card (stored for later when `storeFor` asks; merchant-initiated with the network's id
 * when `initiator` says so), or a charge on a stored card (the shopper's, or the merchant's when `initiator` says so).
 * The shopper's payments may authenticate when `authentication` says so (three-d-secure.ts); the merchant's never do.
 */
export function paymentRequest(request: AuthorizeRequest, merchantAccount: string): { request: PaymentRequest } | { failure: MappedFailure } {
  const value = adyenValue(request.amount, request.currency);
  // Not expressible in Adyen's minor units (e.g. IDR with cents): not the card's answer; another provider may take it.
  if (value === undefined) return { failure: { declineCode: 'processing_error', class: 'soft' } };
  const merchant = request.initiator?.type === 'merchant' ? request.initiator : undefined;
  const additionalData: Record<string, string> = { manualCapture: 'true' };
  // A raw card's earlier authorization (its network's id): how the issuer links this charge to the series.
  if (merchant?.networkTransactionId && !request.providerToken) additionalData.networkTxReference = merchant.networkTransactionId;
  const base = {
    merchantAccount,
    amount: { currency: request.currency.toUpperCase(), value },
    reference: adyenKey(request.idempotencyKey),
    ...authenticationFields(request),
    additionalData,
    metadata: { paymentId: request.paymentId, attempt: String(request.attempt) },
  } satisfies Partial<PaymentRequest>;
  const recurringProcessingModel: PaymentRequest['recurringProcessingModel'] =
    merchant?.recurringModel === 'unscheduled' ? 'UnscheduledCardOnFile' : 'Subscription';
  if (request.providerToken) {
    const token = parseProviderToken(request.providerToken);
    if (!token) return { failure: { declineCode: 'invalid_account', class: 'hard' } };
    // The merchant's charge without the shopper (ContAuth), or the shopper paying with the card kept (CardOnFile).
    const initiated = merchant
      ? { shopperInteraction: 'ContAuth' as const, recurringProcessingModel }
      : { shopperInteraction: 'Ecommerce' as const, recurringProcessingModel: 'CardOnFile' as const };
    return {
      request: {
        ...base,
        paymentMethod: { type: 'scheme', storedPaymentMethodId: token.storedPaymentMethodId },
        shopperReference: token.shopperReference,
        ...initiated,
      },
    };
  }
  const { card } = request;
  if (!card) throw new Error('An Adyen authorization needs a card or a provider token');
  const stored = request.storeFor
    ? {
        storePaymentMethod: true,
        shopperReference: request.storeFor.customerReference,
        recurringProcessingModel: 'Subscription' as const,
        shopperInteraction: 'Ecommerce' as const,
        ...(request.storeFor.email ? { shopperEmail: request.storeFor.email } : {}),
      }
    : {};
  // Merchant-initiated: the card on file charged without the shopper (ContAuth), never with a CVC.
  const initiated = merchant ? { shopperInteraction: 'ContAuth' as const, recurringProcessingModel } : {};
  const cvc = !merchant && card.cvc ? { cvc: card.cvc } : {};
  return {
    request: {
      ...base,
      paymentMethod: {
        type: 'scheme',
        number: card.number,
        expiryMonth: String(card.exp_month).padStart(2, '0'),
        expiryYear: String(card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year),
        ...cvc,
      },
      ...stored,
      ...initiated,
    },
  };
}

/**
 * The card-on-file token of an approval: the one charged again, or the stored payment method Adyen returned
 * (`tokenization.storedPaymentMethodId`; `recurring.recurringDetailReference` before v68), or '' (nothing stored).
 */
export function tokenOf(request: AuthorizeRequest, sent: PaymentRequest, answer: PaymentResponse): string {
  if (request.providerToken) return request.providerToken;
  return sent.storePaymentMethod ? storedTokenOf(answer.additionalData, sent.shopperReference) : '';
}

/** The stored payment method an answer reports (also /payments/details after a challenge), or '' (none). */
export function storedTokenOf(data: Record<string, string> = {}, shopperReference?: string): string {
  const id = data['tokenization.storedPaymentMethodId'] ?? data['recurring.recurringDetailReference'];
  const shopper = data['tokenization.shopperReference'] ?? data['recurring.shopperReference'] ?? shopperReference;
  return id && shopper ? providerTokenOf(id, shopper) : '';
}
