/** The hand-written parts of the OpenAPI document: servers, tags, security, shared headers and the error responses. */
import { MESSAGES } from '../../shared/model/errors.ts';
import { exampleId, idPattern } from '../../shared/model/ids.ts';

export const SERVERS = [
  { url: 'http://localhost:3000', description: 'Local runtime (`npm start`)' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
    description: 'Deployed stack (`npx cdk deploy` prints the URL)',
    variables: { apiId: { default: 'abc123defg' }, region: { default: 'eu-west-1' }, stage: { default: 'v1' } },
  },
];

/** A tag per area of the API; `areas` are the first segments of the catalog's function names. */
export const TAGS = [
  { name: 'Authentication', areas: ['auth'], description: 'Sign in with a one-time code sent by e-mail; the token works like an API key for 12 h.' },
  { name: 'Team', areas: ['team'], description: "The merchant's members and their roles, and invitations by e-mail." },
  { name: 'API keys', areas: ['api-keys'], description: '`sk_live_…` and `sk_test_…` keys; the full key is shown once, at creation.' },
  {
    name: 'Settings and hosted pages',
    areas: ['settings', 'hosted'],
    description: 'Checkout origins, and the card fields a checkout page frames so that card numbers never reach the merchant.',
  },
  {
    name: 'Audit log',
    areas: ['audit-log'],
    description:
      'Who changed what, when and from where: people’s writes, keys’ changes of settings, keys, connectors, routing and webhooks, sign-ins.',
  },
  { name: 'Customers', areas: ['customers'], description: 'The people who pay; a payment whose `customer.email` matches is linked.' },
  {
    name: 'Payments',
    areas: ['payments', 'refunds'],
    description: 'Authorize (create), capture, void and refund card payments; list them with filters.',
  },
  {
    name: 'Payment methods',
    areas: ['payment-methods'],
    description: 'Saved cards (`pm_…`): the number lives only in the vault; a publishable key may create them from a browser.',
  },
  {
    name: 'Connectors',
    areas: ['connectors'],
    description: "The merchant's own Stripe, Adyen and Braintree accounts: credentials verified and stored sealed, never shown again.",
  },
  {
    name: 'Disputes',
    areas: ['disputes', 'test-helpers'],
    description: 'Chargebacks reported by the providers: evidence and acceptance forwarded to them; a test helper opens one in test mode.',
  },
  { name: 'Routing', areas: ['routing'], description: 'Rules that pick the provider, and a simulation of the decision a payment would get.' },
  { name: 'Subscriptions', areas: ['subscriptions'], description: 'Recurring charges of a customer: renewals invoice and charge the card on file.' },
  {
    name: 'Test clocks',
    areas: ['test-clocks'],
    description: "Test mode: a clock its customers' billing follows; advancing it runs their renewals, retries and settlements as time would.",
  },
  {
    name: 'Invoices',
    areas: ['invoices'],
    description: 'Invoices with computed tax, gapless numbers, a signed PDF link, and delivery by e-mail, SMS or WhatsApp.',
  },
  {
    name: 'Payment links',
    areas: ['payment-links'],
    description:
      'A page to pay without a checkout of your own: line items, tax, a limit; each visit a checkout with the hosted card fields and 3-D Secure.',
  },
  {
    name: 'Balance and settlements',
    areas: ['balance', 'settlements', 'reconciliation'],
    description:
      "Funds pending and available per currency, the daily payouts, and the providers' own payouts reconciled: settlements with real fees and what does not match.",
  },
  { name: 'Analytics', areas: ['analytics'], description: 'Volume, approval rate, revenue per day and provider performance over a window.' },
  {
    name: 'Webhooks',
    areas: ['webhooks', 'events'],
    description: 'Endpoints that receive every event signed per Standard Webhooks, the delivery log, events and their redelivery, and test sends.',
  },
];

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`sk_live_…`, `sk_test_…`, a restricted `rk_…`) or the session token from `POST /api/auth/verify-otp`.',
  },
};

export const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'Replays the first response (24 h) for the same key and body; the same key with another body is a 400.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'order-1042',
  },
  // The Standard Webhooks headers of every delivery (shared/webhooks/signing.ts).
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id, the same on every retry: an endpoint that has processed it already acknowledges and skips it.",
    schema: { type: 'string', pattern: idPattern('event').source },
    example: exampleId('event'),
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed (Unix seconds): refuse a delivery too far from now (`standardwebhooks` allows 5 minutes).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1773480413',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      "`v1,` then the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the endpoint's `whsec_` secret (its base64 part decoded); several are separated by spaces (for 24 h after a rotation, the new secret's and the old one's). Verify with the `standardwebhooks` library.",
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
};

/** What every webhook delivery says beyond its trigger (docs/api.md "Webhooks"). */
export const WEBHOOK_DELIVERY =
  'Sent to every active endpoint subscribed to this event (or to `*`), signed per Standard Webhooks (the `webhook-*` headers). ' +
  'At least once: the same `webhook-id` may arrive again, and events may arrive out of order: `data.object.sequence` grows with every ' +
  'change of the object, so an event carrying a smaller one than already seen is stale. Answer within 15 s; a failed delivery is retried ' +
  'with backoff for up to 3 days, then dead-lettered.';

/** The answers an endpoint gives a delivery. */
export const WEBHOOK_RESPONSES = {
  '2XX': { description: 'Any 2xx acknowledges the event: it is not sent to this endpoint again.' },
  '410': { description: 'Gone: the endpoint is disabled (status `disabled`) and receives no more events.' },
  default: { description: 'Anything else, or no answer within 15 s, is retried with backoff for up to 3 days.' },
};

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });
export const HEADERS = {
  RequestId: header('Identifies the request (a UUID), also in `error.request_id`.', { type: 'string', format: 'uuid' }),
  XRateLimitLimit: header('Requests allowed per one-minute window.', { type: 'integer', examples: [100] }),
  XRateLimitRemaining: header('Requests left in the current window.', { type: 'integer', examples: [99] }),
  XRateLimitReset: header('When the window resets (Unix seconds).', { type: 'integer', examples: [1773480420] }),
  RetryAfter: header(
    'Seconds to wait before retrying: until the next window (429), or until the running request or operation ends its lease (409).',
    { type: 'integer', examples: [17] },
  ),
};

const STATUS = {
  400: [
    'Invalid request: a body or query that fails validation, a query parameter the operation does not take (`parameter_unknown`), an operation the resource state refuses, a reused Idempotency-Key',
    'invalid_request_error',
    'parameter_invalid',
    { param: 'amount' },
  ],
  401: ['Missing, invalid or revoked credential (for verify-otp: a wrong, expired or used code)', 'authentication_error', 'invalid_api_key', {}],
  402: [
    'Payment declined; the failed payment is kept',
    'card_error',
    'card_declined',
    { decline_code: 'insufficient_funds', payment_id: exampleId('payment') },
  ],
  403: [
    "The credential may not do this (`permission_denied`: a key's or a role's permissions, e.g. `Permission denied: this key lacks payments:write`), or not from where the request came (`ip_not_allowed`: outside the key's `allowed_ips`; a shopper's payment form posted from another site)",
    'permission_error',
    'permission_denied',
    {},
  ],
  404: ['No such resource for this merchant (a malformed id too)', 'invalid_request_error', 'resource_missing', {}],
  409: [
    'A request with this Idempotency-Key is still running (`idempotency_key_in_use`), or another operation on the same payment is (`operation_in_progress`, type `invalid_request_error`); retry after `Retry-After` seconds with the same key',
    'idempotency_error',
    'idempotency_key_in_use',
    {},
  ],
  429: ['Rate limit exceeded (100 per minute)', 'rate_limit_error', 'rate_limit_exceeded', {}],
  500: [
    'No provider could process the request, nothing was charged (`providers_unavailable`); or the provider accepted but its answer was lost (`provider_outcome_unknown`, with `payment_id`): retry with the same Idempotency-Key, or let the reconciler finish it',
    'api_error',
    'providers_unavailable',
    {},
  ],
} as const;

/** Error responses by status: the `ErrorBody` schema with an example of that status. */
export const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(STATUS).map(([status, [description, type, code, details]]) => [
    status,
    {
      description,
      headers: {
        'Request-Id': { $ref: '#/components/headers/RequestId' },
        ...(status === '409' && { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }),
        ...(status === '429' && {
          'Retry-After': { $ref: '#/components/headers/RetryAfter' },
          'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
          'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
          'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
        }),
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorBody' },
          example: {
            error: {
              type,
              code,
              message: MESSAGES[Number(status) as keyof typeof MESSAGES],
              ...details,
              request_id: '3f0c2b1e-8d4a-4c6b-9a51-2f7e6d1c0b9a',
            },
          },
        },
      },
    },
  ]),
);
