/**
 * What the event fixtures point at, beyond the demo merchant's key, customer and payments: a customer to delete, an
 * invoice (with a signed PDF link), a subscription, a routing rule, a webhook endpoint, a connector account, a refund, two disputes, a signed provider
 * notification, a settlement, a sign-in code, a checkout origin and a reconciliation exception. `npm run invoke`
 * and the catalog test fill the fixtures' placeholders with these, so every fixture answers as in real use.
 */
import { SANDBOX_APPROVED_CARD } from '../../shared/providers/test-cards.ts';
import { authenticate, authenticateSession, type Merchant, ownerOf } from '../../shared/domain/auth.ts';
import { acceptInvitation, invite, signIn } from '../../shared/domain/team.ts';
import { clock } from '../../shared/model/clock.ts';
import type { DemoMerchant } from '../../shared/domain/demo.ts';
import { createConnector } from '../../shared/domain/connectors.ts';
import { createCustomer } from '../../shared/domain/customers.ts';
import { createInvoice } from '../../shared/domain/invoices.ts';
import { refundPayment } from '../../shared/domain/refund-operation.ts';
import { dayOf } from '../../shared/store/ledger.ts';
import { requestOtp } from '../../shared/domain/otp.ts';
import { createRoutingRule } from '../../shared/domain/routing-rules.ts';
import { HOLD_DAYS, listSettlements, settleMerchant } from '../../shared/domain/settlements.ts';
import { signedPayUrl, signedPdfUrl } from '../../shared/domain/signed-links.ts';
import { payPage } from '../../shared/domain/payment-links.ts';
import { createSubscription, pauseSubscription } from '../../shared/domain/subscriptions.ts';
import { configureWebhook, listDeliveries } from '../../shared/domain/webhooks.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { FAKE_CREDENTIALS } from './fakes/index.ts';
import { stripeSignature } from './fakes/stripe/notifications.ts';
import { openTestDispute } from '../../shared/domain/disputes.ts';
import { createTestClock } from '../../shared/domain/test-clocks.ts';
import { createPaymentMethod } from '../../shared/domain/payment-methods.ts';
import { createPayment } from '../../shared/domain/payment-create.ts';
import { createPaymentLink } from '../../shared/domain/payment-link-admin.ts';
import { visitLink } from '../../shared/domain/payment-link-checkout.ts';
import { sandboxAnswerSignature, threeDSecureLinks } from '../../shared/domain/signed-links.ts';
import { changeSettings } from '../../shared/domain/settings.ts';
import { reconcileConnector } from '../../shared/domain/reconciliation.ts';
import { listExceptions } from '../../shared/domain/reconciliation-exceptions.ts';
import { config } from '../../shared/config.ts';

export interface FixtureObjects {
  /** a customer with no subscription (to delete) */
  deletableCustomerId: string;
  invoiceId: string;
  pdfExpires: string;
  pdfSignature: string;
  /** the invoice's hosted payment link, and a form id its page served (a post is taken only with one) */
  payExpires: string;
  paySignature: string;
  payFormId: string;
  subscriptionId: string;
  /** a second subscription, paused (to resume) */
  pausedSubscriptionId: string;
  ruleId: string;
  webhookId: string;
  /** the demo's newest event (its endpoint subscribes to every event, so it can be sent again) */
  eventId: string;
  /** a Stripe test account connected through the local Stripe fake (its base URL must be set), and the key it takes */
  connectorId: string;
  /** a refund of 500 of the demo's captured payment */
  refundId: string;
  stripeFakeSecretKey: string;
  /** a Stripe event about an object the service does not follow, signed for the connector (valid for 5 minutes) */
  stripeWebhookBody: string;
  stripeWebhookSignature: string;
  /** two sandbox disputes of the captured demo payment: one to read and answer with evidence, one to accept */
  disputeId: string;
  acceptedDisputeId: string;
  settlementId: string;
  /** two test clocks: one to read and advance, one to delete */
  testClockId: string;
  deletedTestClockId: string;
  otpRequestId: string;
  otp: string;
  /** a session of the demo e-mail (its merchant's owner), a pending invitation, a session of the e-mail it invites (no merchant yet), and a member who joined */
  sessionToken: string;
  invitationId: string;
  inviteeSessionToken: string;
  memberUserId: string;
  /** a card saved for the demo customer (to read and detach), and one saved for nobody (to attach) */
  paymentMethodId: string;
  loosePaymentMethodId: string;
  /**
   * a payment that authenticated (frictionless, sandbox) with a return URL, its hand-off link's expiry and signature,
   * its signed return page (with its expiry and signature apart) and the sandbox challenge page's signed `passed`:
   * all send the shopper on to the merchant (none is left waiting, which a reconciler run would have to cancel)
   */
  threeDsPaymentId: string;
  handOffExpires: string;
  handOffSignature: string;
  threeDsReturnUrl: string;
  threeDsReturnExpires: string;
  threeDsReturnSignature: string;
  sandboxPassedSignature: string;
  /** the origin the demo's test-mode checkout_origins allow to frame the hosted card fields */
  checkoutOrigin: string;
  /** an open reconciliation exception of the Stripe fake's connector account (to resolve) */
  exceptionId: string;
  /** a payment link of two T-shirts with 20 % tax, and a form its page served */
  paymentLinkId: string;
  linkFormId: string;
}

/**
 * A payment captured at the Stripe fake, paid out with a fee one cent off, and reconciled: an exception to resolve
 * (the fee's, or, where the fake paid another merchant's charge in the same payout, that line's missing_in_ledger).
 */
async function exceptionToResolve(merchant: Merchant, connectorId: string): Promise<string> {
  const card = { ...SANDBOX_APPROVED_CARD };
  await createPayment(merchant, {
    amount: 1000,
    currency: 'USD',
    routing: 'stripe',
    capture_method: 'automatic',
    three_d_secure: 'automatic',
    payment_method: { type: 'card', card },
  });
  const paid = await fetch(`${config.STRIPE_API_BASE_URL}/_fake/payouts`, { method: 'POST', body: JSON.stringify({ fee_delta: 1 }) });
  if (!paid.ok) throw new Error(`The Stripe fake made no payout: ${await paid.text()}`);
  await reconcileConnector(merchant, connectorId);
  const [exception] = (await listExceptions(merchant, {}, { limit: 1 })).data;
  if (!exception) throw new Error('The reconciliation run found no exception');
  return exception.id;
}

/** A payment's 3-D Secure links as the create made them (valid for the hour), their parts for the fixtures' queries. */
async function threeDsLinks(baseUrl: string, paymentId: string) {
  const links = await threeDSecureLinks(baseUrl, paymentId, clock.now() + 60 * 60_000);
  const handOff = new URL(links.handOff).searchParams;
  const back = new URL(links.return).searchParams;
  return {
    handOffExpires: handOff.get('expires')!,
    handOffSignature: handOff.get('signature')!,
    threeDsReturnUrl: links.return,
    threeDsReturnExpires: back.get('expires')!,
    threeDsReturnSignature: back.get('signature')!,
    sandboxPassedSignature: await sandboxAnswerSignature(paymentId, 'passed', back.get('expires')!),
  };
}

/** Creates them for the demo merchant (made with its payments: the captured one is what the settlement carries). */
export async function createFixtureObjects(demo: DemoMerchant): Promise<FixtureObjects> {
  const merchant: Merchant = { id: demo.merchantId, credential: 'api_key', livemode: false };
  const baseUrl = 'https://abc123.execute-api.us-east-1.amazonaws.com/v1';
  const monthly = { customer_id: demo.customerId, plan: 'Pro monthly', amount: 2900, currency: 'USD', interval: 'month' as const, interval_count: 1 };
  const [invoice, subscription, paused, rule, webhook, otpRequest, connector] = await Promise.all([
    createInvoice(
      merchant,
      {
        customer_id: demo.customerId,
        items: [{ name: 'Consulting', amount: 12000, quantity: 1 }],
        currency: 'USD',
        due_date: '2030-01-31',
        tax_rate: 0,
      },
      baseUrl,
    ),
    createSubscription(merchant, monthly),
    createSubscription(merchant, monthly).then((made) => pauseSubscription(merchant, made.id)),
    createRoutingRule(merchant, {
      name: 'EUR to Adyen',
      provider: 'adyen',
      strategy: 'fixed',
      priority: 100,
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
    }),
    configureWebhook(merchant, { url: 'http://127.0.0.1:9/hooks', events: ['*'] }),
    requestOtp(demo.email),
    createConnector(merchant, { provider: 'stripe', credentials: FAKE_CREDENTIALS.stripe, label: 'Stripe fake' }, baseUrl),
  ]);
  // the 3-D Secure payment's return_url must be on a checkout origin
  const [checkoutOrigin] = (await changeSettings(merchant, { checkout_origins: ['https://shop.example'] })).checkout_origins;
  const link = await createPaymentLink(
    merchant,
    { line_items: [{ name: 'T-shirt', amount: 2000, quantity: 2 }], currency: 'EUR', tax_rate: 20 },
    baseUrl,
  );
  const authenticated = await createPayment(
    merchant,
    {
      amount: 2500,
      currency: 'EUR',
      routing: 'stripe',
      capture_method: 'manual',
      three_d_secure: 'automatic',
      return_url: 'https://shop.example/checkout/done',
      payment_method: { type: 'card', card: { number: '4000000000003055', exp_month: 12, exp_year: 2034, cvc: '123' } },
    },
    undefined,
    undefined,
    baseUrl,
  );
  const card = (number: string) => ({ type: 'card' as const, card: { number, exp_month: 12, exp_year: 2030, cvc: '123' } });
  const [saved, loose] = await Promise.all([
    createPaymentMethod(merchant, { ...card('5555555555554444'), customer_id: demo.customerId }),
    createPaymentMethod(merchant, card('4000056655665556')),
  ]);
  const [testClock, doomedClock] = await Promise.all(
    ['Fixture clock', 'Clock to delete'].map((name) => createTestClock(merchant, { frozen_time: '2027-01-01T00:00:00Z', name })),
  );
  const refund = await refundPayment(merchant, demo.capturedPaymentId!, { amount: 500 });
  const exceptionId = await exceptionToResolve(merchant, connector.id);
  const deletable = await createCustomer(merchant, { email: `leaving+${demo.merchantId}@example.com`, name: 'Leaving soon' });
  const stripeWebhookBody = JSON.stringify({
    id: 'evt_1FixtureCustomerCreated',
    object: 'event',
    api_version: '2025-09-30.clover',
    created: Math.floor(clock.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'customer.created',
    data: { object: { id: 'cus_fixture', object: 'customer' } },
  });
  // The captured demo payment, settled as the daily job would once its funds are released.
  const settleDay = dayOf(new Date(clock.now() + HOLD_DAYS * 86_400_000).toISOString());
  await settleMerchant(ownerOf(merchant), settleDay);
  const [settlement] = (await listSettlements(merchant, undefined, { limit: 1 })).data;
  if (!settlement) throw new Error('The demo merchant has no captured payment to settle (create it with its payments)');
  // After the settlement: a dispute takes its amount out of the balance.
  const dispute = await openTestDispute(merchant, demo.capturedPaymentId!, { reason: 'fraudulent' });
  const accepted = await openTestDispute(merchant, demo.capturedPaymentId!, { reason: 'duplicate' });
  const pdf = new URL(await signedPdfUrl(baseUrl, invoice.id));
  const pay = new URL(await signedPayUrl(baseUrl, invoice.id));
  const payLink = { expires: pay.searchParams.get('expires')!, signature: pay.searchParams.get('signature')! };
  const { formId: payFormId } = await payPage(invoice.id, payLink);
  const otp = /\b(\d{6})\b/.exec(listLocalOutbox().find((m) => m.to === demo.email)?.text ?? '')?.[1];
  if (!otp) throw new Error('No sign-in code in the local outbox');
  const [event] = (await listDeliveries(merchant, { limit: 1 })).data;
  if (!event) throw new Error('The demo merchant has no event');
  return {
    deletableCustomerId: deletable.id,
    invoiceId: invoice.id,
    pdfExpires: pdf.searchParams.get('expires')!,
    pdfSignature: pdf.searchParams.get('signature')!,
    payExpires: payLink.expires,
    paySignature: payLink.signature,
    payFormId,
    subscriptionId: subscription.id,
    pausedSubscriptionId: paused.id,
    ruleId: rule.id,
    webhookId: webhook.id,
    eventId: event.id,
    connectorId: connector.id,
    refundId: refund.refund_id,
    stripeFakeSecretKey: FAKE_CREDENTIALS.stripe.secret_key,
    stripeWebhookBody,
    stripeWebhookSignature: stripeSignature(stripeWebhookBody, FAKE_CREDENTIALS.stripe.webhook_secret),
    disputeId: dispute.dispute!.id,
    acceptedDisputeId: accepted.dispute!.id,
    settlementId: settlement.id,
    testClockId: testClock!.id,
    deletedTestClockId: doomedClock!.id,
    otpRequestId: otpRequest.request_id,
    otp,
    paymentMethodId: saved.id,
    loosePaymentMethodId: loose.id,
    threeDsPaymentId: authenticated.id,
    ...(await threeDsLinks(baseUrl, authenticated.id)),
    checkoutOrigin: checkoutOrigin!,
    paymentLinkId: link.id,
    linkFormId: await visitLink(link.id, undefined, link.url).then((step) => (step.go === 'stay' && step.page.formId) || ''),
    exceptionId,
    ...(await teamObjects(demo, baseUrl)),
  };
}

/** The demo e-mail signed in as its merchant's owner, who invites one e-mail (signed in, not joined) and another who joined. */
async function teamObjects(demo: DemoMerchant, baseUrl: string) {
  const owner = await signIn(demo.email);
  const actor = await authenticate(owner.token);
  const [inviteeEmail, memberEmail] = ['invitee', 'member'].map((who) => `${who}+${demo.merchantId}@example.com`) as [string, string];
  const [invitation, toJoin] = await Promise.all([
    invite(actor, { email: inviteeEmail, role: 'support' }, baseUrl),
    invite(actor, { email: memberEmail, role: 'developer' }, baseUrl),
  ]);
  const [invitee, member] = await Promise.all([signIn(inviteeEmail), signIn(memberEmail)]);
  const joined = await acceptInvitation(await authenticateSession(member.token), toJoin.id);
  return { sessionToken: owner.token, invitationId: invitation.id, inviteeSessionToken: invitee.token, memberUserId: joined.user_id };
}
