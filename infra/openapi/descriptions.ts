/**
 * The description of each operation in the OpenAPI document, by function name (functions/catalog.ts): what it does,
 * when it may be called and what a developer should know before calling it. The catalog's summary is the title;
 * this is the paragraph under it. The document fails to build when a catalog function has none.
 */
export const DESCRIPTIONS: Readonly<Record<string, string>> = {
  'auth/request-otp':
    'Sends a 6-digit sign-in code to the e-mail address (printed on the console when running locally). The answer is the same ' +
    'for known and unknown addresses. The code is valid for `expires_in` seconds, once, with at most 5 wrong tries. ' +
    'Limited to 100 requests a minute per client IP.',
  'auth/verify-otp':
    'Exchanges the code for a session token that works like an API key for 12 hours (test mode, unless a request carries ' +
    '`Livemode: true`), for one merchant: `merchant_id` if sent (one the user is a member of, else 401), else the one last ' +
    "used. The answer lists the user's `memberships` and pending `invitations`. The first sign-in of an e-mail with no " +
    'membership and no pending invitation creates its merchant, with the user as owner; with a pending invitation it ' +
    'creates none and answers `merchant_id: null`: that token may only accept an invitation or sign out. A wrong, ' +
    'expired or used-up code answers 401. With `session: "cookie"` (the dashboard) the token is set as the HttpOnly ' +
    '`po_session` cookie instead of answered, and the answer carries the `csrf_token` that writes through the cookie send.',
  'auth/sign-out':
    'Ends the session: its token answers 401 from the next request on, and the answer clears the `po_session` cookie. ' +
    'A session only (token or cookie).',
  'auth/session/get':
    'Shows the session (a Bearer session token or the `po_session` cookie): its user, the merchant it acts for and the ' +
    "role there now, the memberships and pending invitations, when it ends, and a cookie session's `csrf_token` (the " +
    'dashboard reads it on load). No session: 401.',
  'auth/session/update':
    'Points the session at another merchant the user is a member of (else 401, as at sign-in), recorded as a sign-in ' +
    'into it in its audit log. The token, CSRF token and expiry stay.',

  'team/invitations/create':
    'Invites an e-mail to the team with a role and e-mails it how to join (locally: the outbox). The invitation can be ' +
    'accepted for 7 days. Only an owner invites an owner (403). An e-mail already a member, or with a pending invitation, ' +
    'answers 400 naming `email`.',
  'team/invitations/list': 'Lists the invitations, newest first; a pending one past its 7 days shows `status: expired`.',
  'team/invitations/revoke': 'Revokes an invitation: it can no longer be accepted. Revoking twice answers 200; an accepted one 400.',
  'team/invitations/accept':
    "Joins the team with the invitation's role and answers a session token for that merchant. A session token of the " +
    'invited e-mail only: for any other session the invitation answers 404. An expired, revoked or accepted invitation ' +
    'answers 400 `invalid_state`.',
  'team/members/list': "Lists the team's members with their roles.",
  'team/members/update':
    "Changes a member's role; their next request has it. Only an owner makes or unmakes owners (403), and the last owner " +
    'stays one (400 `invalid_state`).',
  'team/members/delete':
    'Removes a member: their sessions for this merchant answer 401 from the next request on. The last owner cannot be ' +
    'removed (400 `invalid_state`); only an owner removes an owner (403).',

  'api-keys/list':
    'Lists API keys, newest first, with their prefix and last 4 characters, never the full key; with their type, ' +
    'permissions, `expires_at` and `allowed_ips`.',
  'api-keys/create':
    'Creates an `sk_live_`/`sk_test_` key, a publishable `pk_` key, or a restricted `rk_` key holding only the groups ' +
    '`permissions` names (`team`, `audit_log` and `api_keys` cannot be granted). Any key may expire (`expires_at`); a ' +
    'secret or restricted key may be bound to `allowed_ips`. The full key is in this response only (an idempotent ' +
    'replay omits it): store it now. An API key may create keys of its own mode only.',
  'api-keys/revoke': 'Revokes a key: it answers 401 from the next request on. Revoking a revoked key answers 200.',
  'api-keys/roll':
    'Issues a new key of the same kind (type, mode, name, permissions, `allowed_ips`) and lets the old one work ' +
    '`expires_in_hours` more (0: it stops at once); the old key is then `rolled`. The new key is in this response only.',

  'settings/get': 'Retrieves the settings of the mode the credential acts in. A merchant who never set any has no checkout origin.',
  'settings/update':
    'Replaces the fields sent. `checkout_origins` lists the origins (`https://shop.example`, at most 20; `http://` only for ' +
    'localhost, 127.0.0.1 or [::1]) whose pages may frame the hosted card fields of this mode; stored as browsers send ' +
    'them (lowercase, no default port, no trailing slash); a payment’s `return_url` must be on one of them. A secret key ' +
    'or a session token only.',
  'audit-log/list':
    'Lists the audit log of the mode the credential acts in, newest first: every write by a person, every write by any key ' +
    'to API keys, the team, connectors, routing, webhooks and settings, and sign-ins (the live log). Filters: `actor_id`, ' +
    '`action` (e.g. `payments.refund`), `object_id`, `created_after` (inclusive) and `created_before` (exclusive), ISO ' +
    'date-times. Entries are kept 400 days and never changed; no secret is shown (`"[changed]"`).',
  'audit-log/export':
    'The audit log in a time range (`created_after` inclusive, `created_before` exclusive) as JSON Lines ' +
    '(`application/x-ndjson`): one entry per line, newest first, each as the list shows it. At most 10,000 entries; a ' +
    'longer range answers 400 asking for a narrower one.',
  'hosted/card-fields-script':
    'JavaScript for the merchant’s checkout page: `CardFields.mount(selector, {key})` frames the card fields and answers ' +
    '`{ready, submit()}`; `submit()` resolves with the new payment method (`{id, card}`), never the card number. See docs/checkout.md.',
  'hosted/3ds-hand-off':
    'The `next_action.redirect_to_url.url` of a `requires_action` payment (signed, expiring with the shopper’s hour): ' +
    'sends the shopper on to the provider’s authentication (a redirect, or a form to post), or, once the payment is ' +
    'decided, back to `return_url`. Unsigned, altered or expired: a 404 page, and nobody is sent on.',
  'hosted/3ds-return':
    'The provider brings the shopper back here (the signed, expiring URL it was given, with its fields added): the ' +
    'payment is finished at the provider once (a second return, or one after a void, changes nothing), then the shopper ' +
    'is sent to the payment’s `return_url` with `payment_id`. Unsigned, altered or expired: a 404 page, nothing changes.',
  'hosted/3ds-sandbox':
    'Test mode’s built-in issuer asking the shopper to authenticate, for this service’s signed return page: a Pass and ' +
    'a Fail button, each carrying its answer signed by this page.',
  'hosted/3ds-sandbox-answer': 'The shopper’s answer on the sandbox challenge page, with the signature that page gave it, back to our return page.',
  'hosted/link':
    'A payment link’s page: every visit is a checkout (business, line items, tax, total, card form). Reading it changes ' +
    'nothing but the form it serves. Back from paying (`payment_id`): the receipt, the merchant’s page ' +
    '(`after_completion`), or the bank’s challenge. An inactive or sold-out link says so and takes nothing.',
  'hosted/link-submit':
    'The shopper pays the link’s total: captured at once, 3-D Secure when the bank asks. A typo is shown next to its ' +
    'field with the form kept; only a form the page served is taken, once; the link’s limit is a conditional write.',
  'hosted/stylesheet': 'The shopper pages’ one stylesheet, `accent` the merchant’s `brand_color` without `#`.',
  'hosted/card-form-script': 'The script of the shopper pages’ card form: checks the number (Luhn), expiry and CVC before sending.',
  'hosted/pay':
    'The page where a customer pays an open invoice (the link of `invoice.payment_action_required` and of the invoice ' +
    'e-mail; signed, valid 30 days): the saved card in one click, or a new card. Reading it changes nothing. Back from ' +
    'their bank (`payment_id`), their approved payment pays the invoice.',
  'hosted/pay-submit':
    'The payment page’s form (`application/x-www-form-urlencoded`): a payment of the invoice, the customer present, with ' +
    '3-D Secure when their bank asks; answers 303 back to the page, or the page again saying why nothing was charged.',
  'hosted/card-fields':
    'The page the script frames: number, expiry and CVC checked as the shopper types, sent straight to ' +
    '`POST /api/payment_methods` with the publishable `key`. Its `Content-Security-Policy: frame-ancestors` is the ' +
    'checkout origins of the key’s merchant and mode; an `origin` that is not one of them, or an unknown or revoked key, ' +
    'answers an error page.',
  'hosted/card-fields-frame-script': 'The card fields page’s script (served apart: the page allows no inline script).',

  'customers/create':
    'Creates a customer of the credential’s mode. A payment whose `customer.email` matches is linked to it. In test ' +
    'mode, `test_clock` binds the customer and its subscriptions to a test clock.',
  'payment-methods/create':
    'Saves a card: the number and CVC go to the vault (the CVC until the first payment or an hour), never to this ' +
    'service’s main table, logs or answers. With a publishable key (`pk_…`, from a shopper’s browser) this is the only ' +
    'call allowed, limited to 30 a minute per key and client IP and 600 per key; it names no customer (`customer_id` ' +
    'answers 400: the server attaches), and a payment method it made that is neither attached nor charged within a ' +
    'day is deleted. The same number saved again for the same customer answers the same `pm_` with its expiry updated.',
  'payment-methods/list': 'Lists the payment methods attached to `customer_id`, newest first.',
  'payment-methods/get': 'Retrieves a payment method: brand, last 4, expiry and fingerprint, never the number.',
  'payment-methods/attach':
    'Attaches a payment method to a customer; the customer’s first becomes its `default_payment_method`. One ' +
    'attached to another customer must be detached first (400 `invalid_state`).',
  'payment-methods/detach': 'Detaches a payment method from its customer; it stays usable by id.',
  'payment-methods/delete':
    'Deletes a payment method: its card leaves the vault at once, it then answers 404 everywhere and cannot be ' +
    'charged, it is no longer its customer’s default, and `payment_method.deleted` is sent; the tokens connector ' +
    'accounts issued for the card are removed in the background (retried). While a subscription that is not cancelled ' +
    'charges it (by name, or as its customer’s default) it answers 400 `invalid_state` naming the subscription. ' +
    'Deleting it again answers 404.',
  'customers/list': 'Lists customers, newest first.',
  'customers/get': 'Retrieves a customer.',
  'customers/update': 'Changes the fields sent (`name`, `phone`, `email`, `metadata`); the others keep their values.',
  'customers/delete':
    'Deletes a customer and its payment methods (each as `DELETE /api/payment_methods/:id` does): it then answers 404 ' +
    'and is no longer listed; its payments and invoices keep its `customer_id`. ' +
    'A customer with a subscription that is not cancelled answers 400 `invalid_state`: cancel the subscription first.',

  'payments/create':
    'Authorizes a card payment (funds held, captured later) at the provider that routing picks, and explains the choice ' +
    'in `routing_decision`. A processing error or an outage fails over to the next provider; a decline answers 402 with ' +
    'its `decline_code` and `payment_id`; 500 means no provider could process it and nothing is charged. Send an ' +
    '`Idempotency-Key`: a retry then answers the first result and never charges twice. The card number and CVC are ' +
    'never stored or returned. Limited to 100 a minute per merchant.',
  'payments/list': 'Lists payments, newest first, with filters; `total` counts the payments matching them, in constant time.',
  'payments/get': 'Retrieves a payment with its authorization attempts, oldest first.',
  'payments/update':
    'Changes the fields sent: `description` (null clears it) and `metadata` (replaced whole: at most 50 keys of 1–40 ' +
    'characters, values of at most 500). Amounts, card and customer cannot be changed.',
  'payments/capture':
    'Captures an authorized (`succeeded`) payment, in full or for a smaller `amount` (the rest is released). The ' +
    'captured amount becomes pending balance and available two days later. Any other state answers 400 `invalid_state`.',
  'payments/void':
    'Cancels an authorization that is not captured, releasing the hold on the card. Only a `succeeded` payment can be ' +
    'voided (400 `invalid_state` otherwise).',
  'payments/refund':
    'Refunds a captured payment, in full (the default) or in part, until the captured amount is used up; concurrent ' +
    'refunds can never exceed it. The response keeps the payment’s id and status and adds `refund_id`; the refund ' +
    'itself is at `GET /api/refunds/{id}` and may be `pending` until its provider confirms it.',
  'payments/timeline':
    'Every change of the payment, its attempts, refunds and disputes, oldest first, each with its source (`api`, ' +
    '`provider_webhook`, `reconciler`, `schedule`) and the provider’s reference.',
  'refunds/list': 'Lists refunds, newest first: all of them, or one payment’s with `payment_id`.',
  'refunds/get':
    'Retrieves a refund. `pending` holds its amount until the provider confirms it; a `failed` one gives the amount ' +
    'back to the payment and says why in `failure_reason`.',

  'connectors/create':
    'Connects one of the merchant’s own Stripe, Adyen or Braintree accounts, in the mode of the credential used. The ' +
    'credentials are checked by one read-only call to the provider (400 `connector_verification_failed` with its ' +
    'reason), stored sealed and never returned; `webhook_url` is the address to paste into the provider’s dashboard.',
  'connectors/list': 'Lists the connected provider accounts of the credential’s mode.',
  'connectors/get': 'Retrieves a connector account: provider, label, status and a hint of its credentials, never the credentials.',
  'connectors/update':
    'Changes the label, replaces the credentials (checked again with the provider) or sets `status` to `disabled` ' +
    '(routing skips it) or `active`.',
  'connectors/delete':
    'Takes a connector account out of routing and out of lists; it answers 404 from then on. The payments it ' + 'processed keep their records.',
  'connectors/reconcile':
    'Reads the provider’s payouts since the account’s last run (Stripe: payouts and their balance transactions) and makes ' +
    'one settlement of each, its lines matched to payments, refunds and disputes by the provider’s reference and its real ' +
    'fees booked; every difference is a reconciliation exception. Running it again changes nothing. The same run is ' +
    'made daily for every account; the sandbox keeps its simulated settlements.',
  'reconciliation/exceptions/list':
    'What a provider’s payouts and our records disagree on, newest first: `missing_in_provider`, `missing_in_ledger`, ' +
    '`amount_mismatch`, `currency_mismatch`, `fee_mismatch`, `payout_total_mismatch`, each with `expected` (ours) and ' +
    '`actual` (the provider’s). Filters: `kind`, `connector_id`, `status`.',
  'reconciliation/exceptions/resolve':
    'Resolves an open exception with a `resolution` and a `note`, recording `resolved_by` (the API key, or the signed-in ' +
    'merchant) and `resolved_at`. A resolved exception answers 400 `invalid_state`.',
  'connectors/webhooks':
    'The address a provider sends its notifications to (the connector’s `webhook_url`). Each one is verified with the ' +
    'provider’s own signature scheme; a forged or unsigned one answers 400 and changes nothing, a duplicate changes ' +
    'nothing twice, and a late one never moves an object back from a final state.',

  'disputes/list': 'Lists disputes, newest first.',
  'disputes/get': 'Retrieves a dispute. An opened dispute takes its amount out of the balance; a won one gives it back.',
  'disputes/evidence':
    'Forwards the evidence to the provider that handled the payment, under an idempotency key of ours. Only a ' +
    'dispute that still needs a response accepts evidence.',
  'disputes/accept': 'Tells the provider the dispute is not contested: the dispute becomes `accepted`, its amount stays lost.',
  'test-helpers/dispute':
    'Test mode: opens a dispute on a captured payment the way its provider would (the sandbox, or the provider fake ' +
    'locally), so the whole dispute flow can be tried without a card network.',
  'test-helpers/payment-method-update':
    "Test mode: plays the card networks' account updater on a saved card: a new expiry, or a replacement number. The " +
    'payment method shows the new expiry (and last four digits), `payment_method.updated` is sent, and the next charge ' +
    'at any connector uses the new card; a subscription waiting for an updated card is charged by the next daily run.',

  'routing/simulate':
    'Answers the routing decision a payment with these fields would get now (rules, scores, alternatives), without ' +
    'calling any provider or creating anything.',
  'routing/rules/list': 'Lists routing rules in the order they are evaluated: lowest `priority` first.',
  'routing/rules/create':
    'Creates an active routing rule. Rules are evaluated before smart scoring; a matching `fixed` rule uses only its ' +
    'provider, a `smart` one puts its provider first and keeps failover.',
  'routing/rules/get': 'Retrieves a routing rule, active or disabled.',
  'routing/rules/update': 'Changes the fields sent (`name`, `priority`, `conditions`, `provider`, `strategy`, `status`).',
  'routing/rules/delete':
    'Deletes a routing rule for good: routing no longer reads it, lists no longer show it, and it answers 404 from then ' +
    'on. Setting `status` to `disabled` instead keeps it for later.',

  'webhooks/configure':
    'Adds an endpoint that receives the events named (or `*`), signed per Standard Webhooks. The `secret` (`whsec_…`) ' +
    'is shown in this response only. Private, link-local and metadata addresses are refused. At most 16 endpoints.',
  'webhooks/list': 'Lists webhook endpoints, without their secrets.',
  'webhooks/get': 'Retrieves a webhook endpoint, without its secret.',
  'webhooks/update':
    'Changes the fields sent (`url`, `events`, `status` `active|disabled`); the others keep their values. A new `url` ' +
    'is checked as on configure. `active` also resumes an endpoint disabled after it answered 410 Gone.',
  'webhooks/rotate-secret':
    'Gives the endpoint a new signing `secret` (`whsec_…`), shown in this response only. For 24 hours ' +
    '(`previous_secret_expires_at`) every delivery carries two `v1,` signatures in `webhook-signature`, the new ' +
    'secret’s and the old one’s, so a receiver verifying with either succeeds while it switches; then only the new one.',
  'webhooks/delete': 'Deletes a webhook endpoint: no further event is delivered to it.',
  'webhooks/events':
    'Lists events, newest first, and whether each was delivered. Deliveries are at least once, retried with jitter for ' + 'up to 3 days.',
  'events/get':
    'Retrieves an event as listed, with the payload its endpoints receive (`data.object`) and how each endpoint’s ' +
    'delivery went (`deliveries`). Events are kept 30 days.',
  'events/redeliver':
    'Queues the event again (same `webhook-id`, signed anew) to `webhook_id`, or to every active endpoint subscribed to ' +
    'its type, and answers the endpoints queued. Each is delivered shortly and retried like any delivery. A disabled ' +
    'endpoint answers 400 `invalid_state`; no endpoint, 400 `no_webhook_endpoint`.',
  'webhooks/test':
    'Delivers one sample event of the named type now to the newest matching endpoint (or `webhook_id`) and reports ' +
    'the answer: `delivered`, `status_code` (0 when unreachable) and `latency_ms`.',

  'subscriptions/create':
    'Starts a subscription of an existing customer: the first renewal is one interval after the start (`next_billing`). ' +
    'Each renewal invoices the period and charges the card on file; a failed charge makes it `past_due` and is retried ' +
    'on days 1, 3 and 5.',
  'subscriptions/list': 'Lists subscriptions, newest first, filtered by `status` or `customer_id`.',
  'subscriptions/get': 'Retrieves a subscription.',
  'subscriptions/update':
    'Changes the fields sent (`plan`, `amount`, `metadata`, which is replaced whole, `cancel_at_period_end`); they apply ' +
    'from the next period. With `cancel_at_period_end: true` the subscription is cancelled on `next_billing` instead of ' +
    'renewing (`subscription.cancelled`); `false` undoes that before then. A cancelled subscription answers 400 `invalid_state`.',
  'subscriptions/pause': 'Pauses an `active` subscription: no renewal runs until it is resumed.',
  'subscriptions/resume': 'Resumes a paused subscription; `next_billing` moves to the next billing date still ahead.',
  'subscriptions/cancel': 'Cancels an active or paused subscription for good.',

  'test-clocks/create':
    'Test mode: creates a clock frozen at `frozen_time` (at most 5 years ahead). Customers created with its id follow ' +
    'its time instead of the real one.',
  'test-clocks/list': 'Test mode: lists test clocks, newest first.',
  'test-clocks/get': 'Test mode: retrieves a test clock; `status` is `advancing` while an advance runs.',
  'test-clocks/advance':
    'Test mode: moves the clock forward. The advance runs in the background and does every piece of due work in time ' +
    'order (renewals, retries, balance release, settlements), then sets `status: ready` and emits `test_clock.ready`. ' +
    'A second advance while one runs answers 400 `invalid_state`.',
  'test-clocks/delete':
    'Test mode: deletes the clock with its customers, their payment methods (as `DELETE /api/payment_methods/:id` does), subscriptions and invoices.',

  'payment-links/create':
    'Creates an active payment link: `line_items`, `tax_rate` (totals as an invoice’s), an optional `limit` of payments ' +
    'and what follows a payment (`after_completion`: a redirect to a checkout origin, or our receipt with a message). ' +
    '`url` is the page shoppers pay on.',
  'payment-links/list': 'Lists payment links, newest first, filtered by `active`.',
  'payment-links/get': 'Retrieves a payment link with `paid_count`, the payments it took.',
  'payment-links/update': 'Changes `active` (an inactive link’s page says it is closed and takes nothing), `after_completion` and `metadata`.',
  'invoices/create':
    'Creates a draft invoice with the next gapless number (`INV-000001`, …), tax computed from `tax_rate`, and a signed ' +
    '`pdf_url` valid for 7 days.',
  'invoices/list': 'Lists invoices, newest first, filtered by `status` or `customer_id`.',
  'invoices/get': 'Retrieves an invoice with a fresh signed `pdf_url`.',
  'invoices/send':
    'Sends the invoice with its PDF link by e-mail (to the customer’s address) or by SMS or WhatsApp (to the ' +
    'customer’s phone; 400 when there is none). `sent_to` is the recipient.',
  'invoices/mark-paid': 'Marks a draft or sent invoice paid and sets `paid_at`. Paying twice answers 400 `invalid_state`.',
  'invoices/pdf':
    'The invoice as a PDF, rendered on request. Public: the link’s signature and expiry are the credential, so a ' +
    'customer can open it without an API key.',

  'balance/get': 'Funds per currency: `pending` (captured in the last two days) and `available` (ready for the next settlement).',
  'settlements/list': 'Lists settlements (one per currency and day), newest first, filtered by `status`.',
  'settlements/get':
    'Retrieves a settlement with the number of payments it covers; one made from a provider’s payout also has its ' +
    'connector account, payout id, gross, fees, net and its lines.',
  'settlements/lines':
    'A settlement’s lines as CSV (`text/csv`) for the books: `settlement_id, provider_payout_id, type, source, amount, ' +
    'fee, net, currency, payment_id, refund_id, dispute_id`, amounts in minor units (negative: taken from the payout). ' +
    'A simulated settlement has the header only.',
  'analytics/overview': 'Volume, transactions and approval rate over a window (`period`), in one currency (default: the busiest).',
  'analytics/revenue': 'Captured minus refunded per day over the window, every day present, with the providers’ fees booked from their payouts.',
  'analytics/providers': 'Volume, approval rate and mean authorization latency per provider over the window.',
  'analytics/recovery':
    'Subscription recovery over the window, by the first decline code of each failed renewal: how many failed, how ' +
    'many were paid after all (a retry, another account, an updated card, the payment link), the recovery rate and ' +
    'the revenue recovered.',
};
