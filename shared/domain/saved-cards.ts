import type { AuthorizeRequest, AuthorizeResult, CardInput, ProviderName } from '../providers/index.ts';
import type { TransactItem } from '../store/client.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import type { PaymentMethodRecord } from '../store/payment-methods.ts';
import * as vault from '../store/vault.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { modeOf, type RouteTarget } from './route-targets.ts';
import { BadRequest, ResourceMissing } from '../model/errors.ts';
import type { Origin } from '../model/ids.ts';
import { detachPaymentMethod, keepPaymentMethod, savePaymentMethod } from './payment-methods.ts';

/** The card a create charges: the one sent with it, or a saved payment method's (its number read from the vault). */
export interface CardToCharge {
  card: CardInput;
  paymentMethod?: PaymentMethodRecord;
  /** saved by this create (`setup_future_usage`) */
  saved?: true;
}

/**
 * A card sent with a create that asks to keep it (`setup_future_usage`): saved as a payment method first (for the
 * create's customer, if named), then charged as one, so the approving account's token is kept on it.
 */
export async function cardToSave(merchant: Merchant, card: CardInput, customerId: string | undefined, origin: Origin): Promise<CardToCharge> {
  const paymentMethod = await savePaymentMethod(merchant, { type: 'card', card, ...(customerId ? { customer_id: customerId } : {}) }, origin);
  // the customer's card saved before (by an earlier request) is charged as it is, and never dropped
  const savedNow = paymentMethod.created_at === new Date(origin.at).toISOString();
  return { card, paymentMethod, ...(savedNow ? { saved: true as const } : {}) };
}

/** A kept card whose payment was declined is not offered again: detached from its customer (still readable by id). */
export async function dropDeclinedSave(merchant: Merchant, charged: CardToCharge, payment: { status: string } | undefined): Promise<void> {
  if (charged.saved && payment?.status === 'failed' && charged.paymentMethod) await detachPaymentMethod(merchant, charged.paymentMethod.id);
}

export async function cardToCharge(merchant: Merchant, method: string | { card: CardInput }, customerId?: string): Promise<CardToCharge> {
  if (typeof method !== 'string') return { card: method.card };
  const owner = ownerOf(merchant);
  const [pm, vaulted] = await Promise.all([paymentMethods.getPaymentMethod(owner, method), vault.readCard(owner, method)]);
  if (!pm || !vaulted) throw new ResourceMissing('payment_method', `no payment method ${method} in ${modeOf(merchant)} mode`);
  if (customerId !== undefined && pm.customer_id !== null && pm.customer_id !== customerId) {
    throw new BadRequest('parameter_invalid', 'payment_method', `payment method ${pm.id} belongs to customer ${pm.customer_id}, not ${customerId}`);
  }
  const { number, cvc } = vaulted;
  return { card: { number, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year, ...(cvc ? { cvc } : {}) }, paymentMethod: pm };
}

/**
 * A payment method a publishable key made is kept from its first payment on, before the payment names it (whatever
 * the payment's outcome): 400 resource_missing when it expired meanwhile.
 */
export async function keepChargedCard(merchant: Merchant, charged: CardToCharge): Promise<void> {
  const pm = charged.paymentMethod;
  if (pm?.expires_at !== undefined && !(await keepPaymentMethod(pm))) {
    throw new ResourceMissing('payment_method', `no payment method ${pm.id} in ${modeOf(merchant)} mode`);
  }
}

const accountOfTarget = (target: RouteTarget) => paymentMethods.accountOf({ provider: target.provider, connector_id: target.connectorId });

/** How an attempt pays at `target`: the token that account issued for the saved card, else the card itself. */
export function methodAt(charged: CardToCharge, target: RouteTarget): Pick<AuthorizeRequest, 'card' | 'providerToken'> {
  const token = charged.paymentMethod?.tokens[accountOfTarget(target)];
  return token ? { providerToken: token.token } : { card: charged.card };
}

/**
 * How an off-session charge (a renewal) pays at `target`: merchant-initiated, naming the network transaction id of
 * the card's first authorization; with that account's token, or else the vault's card without a CVC.
 */
export function offSessionAt(charged: CardToCharge, target: RouteTarget): Pick<AuthorizeRequest, 'card' | 'providerToken' | 'initiator'> {
  const tokens = Object.values(charged.paymentMethod?.tokens ?? {});
  const token = charged.paymentMethod?.tokens[accountOfTarget(target)];
  const networkTransactionId = token?.network_transaction_id ?? tokens.find((t) => t.network_transaction_id)?.network_transaction_id;
  const initiator = { type: 'merchant' as const, ...(networkTransactionId ? { networkTransactionId } : {}) };
  const { cvc: _cvc, ...card } = charged.card;
  return token ? { providerToken: token.token, initiator } : { card, initiator };
}

/** A saved card approved at an account that holds no token for it yet: that account's token, kept with the payment. */
export function tokenKept(charged: CardToCharge, target: RouteTarget, result: AuthorizeResult): TransactItem[] {
  const pm = charged.paymentMethod;
  if (!pm || pm.tokens[accountOfTarget(target)]) return [];
  return tokenKeptOnApproval({ payment_method_id: pm.id, provider: target.provider, connector_id: target.connectorId }, result);
}

/**
 * The token the approving account issued for the payment's saved card, with the network transaction id (renewals
 * name it), kept on the pm_ in the payment's transaction; also when the shopper authenticated first (3-D Secure).
 * A token kept before stays (`tokenWrite`).
 */
export function tokenKeptOnApproval(
  payment: { payment_method_id?: string | null; provider?: string | null; connector_id?: string | null },
  result: AuthorizeResult,
): TransactItem[] {
  if (!payment.payment_method_id || !payment.provider || result.outcome !== 'approved' || !result.providerToken) return [];
  const at = { provider: payment.provider as ProviderName, connector_id: payment.connector_id ?? null };
  return [
    paymentMethods.tokenWrite(payment.payment_method_id, paymentMethods.accountOf(at), {
      ...at,
      token: result.providerToken,
      network_transaction_id: result.networkTransactionId ?? null,
    }),
  ];
}

/** The CVC is kept only until the first authorization with it (PCI DSS 3.3.1), whatever its outcome. */
export async function forgetUsedCvc(merchant: Merchant, charged: CardToCharge): Promise<void> {
  if (charged.paymentMethod && charged.card.cvc) await vault.forgetCvc(ownerOf(merchant), charged.paymentMethod.id);
}
