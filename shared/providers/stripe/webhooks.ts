import Stripe from 'stripe';
import type { InboundWebhook, ProviderCardUpdate, WebhookVerification } from '../types.ts';
import { eventChange, isoOf } from './changes.ts';
import type { StripeCredentials } from './credentials.ts';
import { stripeTokenOf } from './authorization.ts';

/** What Stripe expects back: any 2xx; its own examples answer this. */
const ACKNOWLEDGEMENT = { contentType: 'application/json', body: '{"received":true}' };

/**
 * An inbound Stripe webhook, verified by the SDK (`Stripe-Signature` over the raw body with the endpoint's
 * `whsec_…` secret, within Stripe's default tolerance of 5 minutes). One event per request; its id is Stripe's
 * `evt_…`, the same on every delivery of that event.
 */
export async function parseWebhook(credentials: StripeCredentials, request: InboundWebhook): Promise<WebhookVerification> {
  const webhookSecret = credentials.webhook_secret;
  if (!webhookSecret) {
    return { ok: false, reason: 'connect this account with its webhook_secret (whsec_…, from the Stripe endpoint) to receive its webhooks' };
  }
  const signature = request.headers['stripe-signature'];
  if (!signature) return { ok: false, reason: 'unsigned: no Stripe-Signature header' };
  let event: Stripe.Event;
  try {
    event = await Stripe.webhooks.constructEventAsync(request.body, signature, webhookSecret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      return { ok: false, reason: `Stripe-Signature not verified with this connector's webhook_secret: ${firstSentence(error.message)}` };
    }
    return { ok: false, reason: 'signed, but not a Stripe event' };
  }
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || !event.data) return { ok: false, reason: 'signed, but not a Stripe event' };
  return {
    ok: true,
    notifications: [{ eventId: event.id, occurredAt: isoOf(event.created), change: eventChange(event), ...cardUpdateOf(event) }],
    acknowledgement: ACKNOWLEDGEMENT,
  };
}

/** `payment_method.automatically_updated`: Stripe's card updater changed a card we stored, tagged with our `pm_`. */
function cardUpdateOf(event: Stripe.Event): { cardUpdate: ProviderCardUpdate } | undefined {
  if (event.type !== 'payment_method.automatically_updated') return undefined;
  const method = event.data.object;
  const paymentMethodId = method.metadata?.payment_method_id;
  const customer = typeof method.customer === 'string' ? method.customer : method.customer?.id;
  if (!paymentMethodId || !customer || !method.card) return undefined;
  const { exp_month, exp_year, last4, brand } = method.card;
  return { cardUpdate: { paymentMethodId, token: stripeTokenOf(customer, method.id), exp_month, exp_year, last4, brand } };
}

/** The SDK's reason without its advice on raw bodies. */
const firstSentence = (message: string) => /^[^.]*/.exec(message)?.[0] ?? 'no match';
