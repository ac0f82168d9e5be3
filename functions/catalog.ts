import type { Auth } from '../shared/http/types.ts';
import type { Group, Permission } from '../shared/model/permissions.ts';
import type { QueueName } from '../shared/queues.ts';
import type { SecretPurpose } from '../shared/secret-purposes.ts';

/**
 * THE list of Lambda functions. CDK, the local runtime, the fixture check and the OpenAPI document read it.
 * Adding an endpoint = one line here + one handler file at `functions/<name>.ts`.
 * The function name is the handler path below `functions/`, e.g. `customers/get` → `functions/customers/get.ts`.
 */
export type { Auth };

/** A queue, e-mail through SES, or SMS and WhatsApp through AWS End User Messaging. */
export type Sendable = QueueName | 'email' | 'messages';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type Trigger =
  /**
   * `summary`: one line naming the operation, the title of its entry in the OpenAPI document; `permission`: what a
   * merchant's credential must hold (absent when public or a session's own endpoint), see AREA_GROUPS
   */
  | { type: 'http'; method: HttpMethod; path: string; auth: Auth; summary: string; permission?: Permission }
  | { type: 'queue'; queue: QueueName; batchSize: number }
  | { type: 'schedule'; expression: string; everyMinutesLocally: number }
  /**
   * the table's stream, new items of `itemType` only: records in order per partition key, a failed batch retried from
   * its first failure, bisected, until a record is `maxRecordAgeSeconds` old; then the batch's description goes to
   * `failuresTo`'s dead-letter queue (the stream keeps records 24 hours)
   */
  | { type: 'stream'; itemType: string; batchSize: number; maxRecordAgeSeconds: number; failuresTo: QueueName }
  /**
   * invoked synchronously by the named HTTP functions only (shared/invoke.ts), never reached by a route: where what a
   * public page asks for needs a grant the page must not hold (provider credentials, the vault's cards). CDK lets only
   * `callers` invoke it and deploys it beside them (their area's stack).
   */
  | { type: 'invoke'; callers: readonly string[] };

export type { QueueName };

export interface FunctionSpec {
  name: string;
  trigger: Trigger;
  /** MB */
  memory: number;
  /** seconds */
  timeout: number;
  /**
   * what the function sends: queues, e-mail (SES) and `messages` (SMS and WhatsApp). CDK grants exactly these, and
   * nothing else names the senders.
   */
  sends?: readonly Sendable[];
  /** a worker that only reads the table (a GET's access follows from its method) */
  readsOnly?: true;
  /**
   * the card vault (shared/store/vault.ts): `delete` may only delete cards, `keep` may only keep a card past its
   * expiry (a publishable key's payment method attached), `encrypt` may seal and store cards, `decrypt` may also read
   * and open them (the only functions that may see a card number). CDK grants exactly this; test/infra/vault.test.ts
   * lists them.
   */
  vault?: VaultAccess;
  /**
   * the secrets the function reads, by purpose (shared/secret-purposes.ts): CDK grants exactly these and names only
   * them, so reading any other fails. test/infra/secrets.test.ts lists who may read provider credentials.
   */
  secrets?: readonly SecretPurpose[];
}

export type VaultAccess = 'delete' | 'keep' | 'encrypt' | 'decrypt';

const API: Pick<FunctionSpec, 'memory' | 'timeout'> = { memory: 512, timeout: 10 };

/**
 * The permission group of each area of merchant endpoints (the function name's first part); the level follows from
 * the method: GET reads, every other method writes, except the operations in PERMISSION_EXCEPTIONS.
 */
const AREA_GROUPS: Readonly<Record<string, Group>> = {
  payments: 'payments',
  refunds: 'payments',
  customers: 'customers',
  'payment-methods': 'customers',
  subscriptions: 'billing',
  invoices: 'billing',
  'payment-links': 'payments',
  disputes: 'disputes',
  routing: 'routing',
  connectors: 'connectors',
  webhooks: 'webhooks',
  events: 'webhooks',
  balance: 'finance',
  settlements: 'finance',
  reconciliation: 'finance',
  analytics: 'analytics',
  'test-clocks': 'test_clocks',
  'test-helpers': 'test_clocks',
  settings: 'settings',
  'api-keys': 'api_keys',
  team: 'team',
  'audit-log': 'audit_log',
};
/** Operations whose permission is not their area's group at their method's level. */
const PERMISSION_EXCEPTIONS: Readonly<Record<string, Permission>> = {
  // a simulation changes nothing: whoever reads the rules may try them
  'routing/simulate': 'routing:read',
};

/** What a merchant's credential must hold to call the endpoint `name` (docs/api.md "Team, roles and restricted keys"). */
function permissionOf(method: HttpMethod, name: string): Permission {
  if (name in PERMISSION_EXCEPTIONS) return PERMISSION_EXCEPTIONS[name]!;
  const area = name.split('/')[0]!;
  const group = AREA_GROUPS[area];
  if (!group) throw new Error(`No permission group for the area "${area}" of ${name} (functions/catalog.ts AREA_GROUPS)`);
  return `${group}:${method === 'GET' ? 'read' : 'write'}`;
}

const http = (
  method: HttpMethod,
  path: string,
  name: string,
  summary: string,
  auth: Auth = 'merchant',
  limits: Partial<typeof API> & Pick<FunctionSpec, 'sends' | 'vault' | 'secrets'> = {},
): FunctionSpec => ({
  name,
  trigger: { type: 'http', method, path, auth, summary, ...(auth !== 'public' && auth !== 'session' && { permission: permissionOf(method, name) }) },
  ...API,
  ...limits,
});

export const catalog: readonly FunctionSpec[] = [
  http('POST', '/api/auth/request-otp', 'auth/request-otp', 'Send a one-time sign-in code by e-mail', 'public', {
    sends: ['email'],
    secrets: ['otp'],
  }),
  http('POST', '/api/auth/verify-otp', 'auth/verify-otp', 'Exchange a one-time code for a session token', 'public', { secrets: ['otp'] }),
  http('POST', '/api/auth/sign-out', 'auth/sign-out', 'End the session', 'session'),
  http('GET', '/api/auth/session', 'auth/session/get', 'Show the session: who, for which merchant, in which role', 'session'),
  http('PUT', '/api/auth/session', 'auth/session/update', 'Act for another merchant of the signed-in user', 'session'),

  http('POST', '/api/team/invitations', 'team/invitations/create', 'Invite someone to the team by e-mail', 'merchant', {
    sends: ['email'],
    secrets: ['idempotency'],
  }),
  http('GET', '/api/team/invitations', 'team/invitations/list', "List the team's invitations"),
  http('DELETE', '/api/team/invitations/{id}', 'team/invitations/revoke', 'Revoke an invitation'),
  http('POST', '/api/team/invitations/{id}/accept', 'team/invitations/accept', 'Accept an invitation to a team', 'session'),
  http('GET', '/api/team/members', 'team/members/list', "List the team's members"),
  http('PUT', '/api/team/members/{user_id}', 'team/members/update', "Change a member's role"),
  http('DELETE', '/api/team/members/{user_id}', 'team/members/delete', 'Remove a member from the team'),

  http('GET', '/api/api-keys', 'api-keys/list', 'List API keys'),
  http('POST', '/api/api-keys', 'api-keys/create', 'Create an API key', 'merchant', { secrets: ['idempotency'] }),
  http('PUT', '/api/api-keys/{id}/revoke', 'api-keys/revoke', 'Revoke an API key'),
  http(
    'POST',
    '/api/api-keys/{id}/roll',
    'api-keys/roll',
    'Roll an API key: a new key of the same kind; the old one works for the overlap given',
    'merchant',
    {
      secrets: ['idempotency'],
    },
  ),

  http('GET', '/api/settings', 'settings/get', 'Retrieve the settings (checkout origins, branding)'),
  http('PUT', '/api/settings', 'settings/update', 'Update the settings (checkout origins, branding)'),

  http('GET', '/api/audit_log', 'audit-log/list', 'List the audit log (who changed what, from where)'),
  http('GET', '/api/audit_log/export', 'audit-log/export', 'Export the audit log as JSON Lines'),
  // Pages and scripts for shoppers' browsers (HTML and JS, not JSON): the card fields a merchant's checkout frames.
  http('GET', '/hosted/card-fields.js', 'hosted/card-fields-script', 'The script a checkout page includes to mount the card fields', 'public'),
  http('GET', '/hosted/card-fields', 'hosted/card-fields', 'The card fields page (framed by a checkout origin)', 'public'),
  http('GET', '/hosted/card-fields-frame.js', 'hosted/card-fields-frame-script', "The card fields page's own script", 'public'),
  http('GET', '/hosted/3ds/{id}', 'hosted/3ds-hand-off', "A payment's 3-D Secure hand-off: the shopper on to the provider", 'public', {
    secrets: ['links'],
  }),
  http('GET', '/hosted/3ds/return/{id}', 'hosted/3ds-return', 'Where the provider brings the shopper back after 3-D Secure', 'public', {
    secrets: ['links'],
  }),
  http('GET', '/hosted/3ds/sandbox', 'hosted/3ds-sandbox', "The sandbox issuer's 3-D Secure challenge page", 'public', { secrets: ['links'] }),
  http('GET', '/hosted/3ds/sandbox/answer', 'hosted/3ds-sandbox-answer', "The shopper's answer to the sandbox challenge", 'public', {
    secrets: ['links'],
  }),
  http('GET', '/hosted/pay/{id}', 'hosted/pay', "An invoice's payment page, for its customer (signed link)", 'public', { secrets: ['links'] }),
  http('POST', '/hosted/pay/{id}', 'hosted/pay-submit', 'The customer pays the invoice from its payment page', 'public', { secrets: ['links'] }),
  http('GET', '/hosted/link/{id}', 'hosted/link', "A payment link's page: a checkout on every visit, then the receipt", 'public', {
    sends: ['email'],
  }),
  http('POST', '/hosted/link/{id}', 'hosted/link-submit', 'The shopper pays on the payment link page', 'public'),
  http('GET', '/hosted/checkout.css', 'hosted/stylesheet', "The shopper pages' stylesheet, in the merchant's colour", 'public'),
  http('GET', '/hosted/card-form.js', 'hosted/card-form-script', "The shopper pages' card form check (Luhn, expiry, CVC) before sending", 'public'),
  // What those public pages do at the provider, apart: no route reaches these, only the page that names them calls them.
  {
    name: 'private/pay-invoice',
    trigger: { type: 'invoke', callers: ['hosted/pay-submit'] },
    ...API,
    vault: 'decrypt',
    secrets: ['links', 'fingerprints', 'credentials'],
  },
  {
    name: 'private/pay-link',
    trigger: { type: 'invoke', callers: ['hosted/link-submit'] },
    ...API,
    vault: 'decrypt',
    sends: ['email'],
    secrets: ['links', 'fingerprints', 'credentials'],
  },
  {
    name: 'private/finish-authentication',
    trigger: { type: 'invoke', callers: ['hosted/3ds-return'] },
    ...API,
    secrets: ['credentials'],
  },

  http('POST', '/api/customers', 'customers/create', 'Create a customer', 'merchant', { secrets: ['idempotency'] }),
  http('GET', '/api/customers', 'customers/list', 'List customers'),
  http('GET', '/api/customers/{id}', 'customers/get', 'Retrieve a customer'),
  http('PUT', '/api/customers/{id}', 'customers/update', 'Update a customer'),
  http('DELETE', '/api/customers/{id}', 'customers/delete', 'Delete a customer (and its payment methods)', 'merchant', { vault: 'delete' }),

  http('POST', '/api/payment_methods', 'payment-methods/create', 'Save a card as a payment method (secret or publishable key)', 'publishable', {
    vault: 'encrypt',
    secrets: ['fingerprints', 'idempotency'],
  }),
  http('GET', '/api/payment_methods', 'payment-methods/list', "List a customer's payment methods"),
  http('GET', '/api/payment_methods/{id}', 'payment-methods/get', 'Retrieve a payment method'),
  http('POST', '/api/payment_methods/{id}/attach', 'payment-methods/attach', 'Attach a payment method to a customer', 'merchant', {
    vault: 'keep',
    secrets: ['idempotency'],
  }),
  http('POST', '/api/payment_methods/{id}/detach', 'payment-methods/detach', 'Detach a payment method from its customer', 'merchant', {
    secrets: ['idempotency'],
  }),
  http('DELETE', '/api/payment_methods/{id}', 'payment-methods/delete', 'Delete a payment method (its card and its tokens)', 'merchant', {
    vault: 'delete',
  }),

  http('POST', '/api/payments/create', 'payments/create', 'Create (authorize) a payment', 'merchant', {
    vault: 'decrypt',
    secrets: ['links', 'fingerprints', 'credentials', 'idempotency'],
  }),
  http('GET', '/api/payments/list', 'payments/list', 'List payments'),
  http('GET', '/api/payments/{id}', 'payments/get', 'Retrieve a payment'),
  http('PUT', '/api/payments/{id}', 'payments/update', 'Update a payment (description, metadata)'),
  http('POST', '/api/payments/{id}/capture', 'payments/capture', 'Capture a payment', 'merchant', { secrets: ['credentials', 'idempotency'] }),
  http('POST', '/api/payments/{id}/void', 'payments/void', 'Void a payment', 'merchant', { secrets: ['credentials', 'idempotency'] }),
  http('POST', '/api/payments/{id}/refund', 'payments/refund', 'Refund a payment', 'merchant', { secrets: ['credentials', 'idempotency'] }),

  http('GET', '/api/payments/{id}/timeline', 'payments/timeline', 'Every change of a payment, its refunds and disputes, with its source'),
  http('GET', '/api/refunds', 'refunds/list', 'List refunds (all, or one payment’s)'),
  http('GET', '/api/refunds/{id}', 'refunds/get', 'Retrieve a refund'),

  http('POST', '/api/connectors', 'connectors/create', 'Connect a provider account (credentials verified, stored sealed)', 'merchant', {
    secrets: ['credentials', 'idempotency'],
  }),
  http('GET', '/api/connectors', 'connectors/list', 'List connector accounts'),
  http('GET', '/api/connectors/{id}', 'connectors/get', 'Retrieve a connector account'),
  http('PUT', '/api/connectors/{id}', 'connectors/update', 'Update a connector account (label, credentials, status)', 'merchant', {
    secrets: ['credentials'],
  }),
  http('DELETE', '/api/connectors/{id}', 'connectors/delete', 'Delete a connector account'),
  // Reads the provider's payouts since the last run (a day's take: a few calls per payout), within API Gateway's 29 s.
  http('POST', '/api/connectors/{id}/reconcile', 'connectors/reconcile', "Reconcile a connector account with its provider's payouts", 'merchant', {
    timeout: 28,
    secrets: ['credentials', 'idempotency'],
  }),
  http(
    'GET',
    '/api/reconciliation/exceptions',
    'reconciliation/exceptions/list',
    'List reconciliation exceptions (what a payout and our records disagree on)',
  ),
  http('POST', '/api/reconciliation/exceptions/{id}/resolve', 'reconciliation/exceptions/resolve', 'Resolve a reconciliation exception', 'merchant', {
    secrets: ['idempotency'],
  }),
  http(
    'POST',
    '/api/connectors/{id}/webhooks',
    'connectors/webhooks',
    "Receive the provider's notifications for a connector account (signed by the provider)",
    'public',
    { secrets: ['credentials'] },
  ),

  http('GET', '/api/disputes', 'disputes/list', 'List disputes'),
  http('GET', '/api/disputes/{id}', 'disputes/get', 'Retrieve a dispute'),
  http('POST', '/api/disputes/{id}/evidence', 'disputes/evidence', 'Submit evidence for a dispute (forwarded to the provider)', 'merchant', {
    secrets: ['credentials', 'idempotency'],
  }),
  http('POST', '/api/disputes/{id}/accept', 'disputes/accept', 'Accept a dispute (not contested)', 'merchant', {
    secrets: ['credentials', 'idempotency'],
  }),
  http(
    'POST',
    '/api/test_helpers/payments/{id}/dispute',
    'test-helpers/dispute',
    'Open a dispute on a captured test payment (test mode)',
    'merchant',
    { secrets: ['idempotency'] },
  ),
  http(
    'POST',
    '/api/test_helpers/payment_methods/{id}/update',
    'test-helpers/payment-method-update',
    "Play the card networks' updater on a saved test card: a new expiry, or a new number (test mode)",
    'merchant',
    { vault: 'encrypt', secrets: ['idempotency'] },
  ),

  http('POST', '/api/routing/simulate', 'routing/simulate', 'Simulate the routing of a payment'),
  http('GET', '/api/routing/rules', 'routing/rules/list', 'List routing rules'),
  http('POST', '/api/routing/rules', 'routing/rules/create', 'Create a routing rule', 'merchant', { secrets: ['idempotency'] }),
  http('GET', '/api/routing/rules/{id}', 'routing/rules/get', 'Retrieve a routing rule'),
  http('PUT', '/api/routing/rules/{id}', 'routing/rules/update', 'Update a routing rule'),
  http('DELETE', '/api/routing/rules/{id}', 'routing/rules/delete', 'Delete a routing rule (it no longer routes)'),

  http('POST', '/api/webhooks/configure', 'webhooks/configure', 'Configure a webhook endpoint', 'merchant', { secrets: ['webhooks', 'idempotency'] }),
  http('GET', '/api/webhooks', 'webhooks/list', 'List webhook endpoints'),
  http('GET', '/api/webhooks/{id}', 'webhooks/get', 'Retrieve a webhook endpoint'),
  http('PUT', '/api/webhooks/{id}', 'webhooks/update', 'Update a webhook endpoint (url, events, status)'),
  http('DELETE', '/api/webhooks/{id}', 'webhooks/delete', 'Delete a webhook endpoint'),
  http('POST', '/api/webhooks/{id}/rotate-secret', 'webhooks/rotate-secret', 'Rotate the signing secret of a webhook endpoint', 'merchant', {
    secrets: ['webhooks', 'idempotency'],
  }),
  http('GET', '/api/webhooks/events', 'webhooks/events', 'List webhook events and their delivery'),
  http('GET', '/api/events/{id}', 'events/get', 'Retrieve an event with its payload'),
  http('POST', '/api/events/{id}/redeliver', 'events/redeliver', 'Send an event again', 'merchant', { sends: ['events'], secrets: ['idempotency'] }),
  // Delivers synchronously: up to the 15 s delivery timeout, within API Gateway's 29 s.
  http('POST', '/api/webhooks/test', 'webhooks/test', 'Send a test event', 'merchant', { timeout: 20, secrets: ['webhooks'] }),

  http('POST', '/api/subscriptions', 'subscriptions/create', 'Create a subscription', 'merchant', { secrets: ['idempotency'] }),
  http('GET', '/api/subscriptions', 'subscriptions/list', 'List subscriptions'),
  http('GET', '/api/subscriptions/{id}', 'subscriptions/get', 'Retrieve a subscription'),
  http(
    'PUT',
    '/api/subscriptions/{id}',
    'subscriptions/update',
    'Update a subscription (plan, amount, metadata, cancel_at_period_end; from the next period)',
  ),
  http('PUT', '/api/subscriptions/{id}/pause', 'subscriptions/pause', 'Pause a subscription'),
  http('PUT', '/api/subscriptions/{id}/resume', 'subscriptions/resume', 'Resume a subscription'),
  http('PUT', '/api/subscriptions/{id}/cancel', 'subscriptions/cancel', 'Cancel a subscription'),
  http('POST', '/api/test_clocks', 'test-clocks/create', 'Create a test clock', 'merchant', { secrets: ['idempotency'] }),
  http('GET', '/api/test_clocks', 'test-clocks/list', 'List test clocks'),
  http('GET', '/api/test_clocks/{id}', 'test-clocks/get', 'Retrieve a test clock'),
  http('POST', '/api/test_clocks/{id}/advance', 'test-clocks/advance', 'Advance a test clock', 'merchant', {
    sends: ['clocks'],
    secrets: ['idempotency'],
  }),
  http('DELETE', '/api/test_clocks/{id}', 'test-clocks/delete', 'Delete a test clock and its objects', 'merchant', { vault: 'delete' }),

  http('POST', '/api/payment_links', 'payment-links/create', 'Create a payment link', 'merchant', { secrets: ['idempotency'] }),
  http('GET', '/api/payment_links', 'payment-links/list', 'List payment links'),
  http('GET', '/api/payment_links/{id}', 'payment-links/get', 'Retrieve a payment link'),
  http('PUT', '/api/payment_links/{id}', 'payment-links/update', 'Update a payment link (active, after_completion, metadata)'),

  http('POST', '/api/invoices', 'invoices/create', 'Create an invoice', 'merchant', { secrets: ['links', 'idempotency'] }),
  http('GET', '/api/invoices', 'invoices/list', 'List invoices', 'merchant', { secrets: ['links'] }),
  http('GET', '/api/invoices/{id}', 'invoices/get', 'Retrieve an invoice', 'merchant', { secrets: ['links'] }),
  http('PUT', '/api/invoices/{id}/send', 'invoices/send', 'Send an invoice', 'merchant', { sends: ['email', 'messages'], secrets: ['links'] }),
  http('PUT', '/api/invoices/{id}/mark-paid', 'invoices/mark-paid', 'Mark an invoice paid', 'merchant', { secrets: ['links'] }),
  // The customer's link: signed (HMAC, 7 days), no API key; renders the PDF on request.
  http('GET', '/api/invoices/{id}/pdf', 'invoices/pdf', 'Download an invoice PDF (signed link)', 'public', {
    memory: 1024,
    timeout: 10,
    secrets: ['links'],
  }),

  http('GET', '/api/balance', 'balance/get', 'Retrieve the balance'),
  http('GET', '/api/settlements', 'settlements/list', 'List settlements'),
  http('GET', '/api/settlements/{id}', 'settlements/get', 'Retrieve a settlement'),
  http('GET', '/api/settlements/{id}/lines', 'settlements/lines', "Export a settlement's lines as CSV"),
  http('GET', '/api/analytics', 'analytics/overview', 'Payment analytics overview'),
  http('GET', '/api/analytics/revenue', 'analytics/revenue', 'Revenue per day'),
  http('GET', '/api/analytics/providers', 'analytics/providers', 'Provider performance'),
  http('GET', '/api/analytics/recovery', 'analytics/recovery', 'Subscription recovery by decline code'),

  // Background work. A queue's visibility timeout is at least 6× its worker's timeout (shared/queues.ts).
  // Events: a change commits its event items; the table's stream hands them to the events queue; the delivery worker
  // fans them out and sends its retries back to the queue.
  {
    name: 'workers/event-stream',
    trigger: { type: 'stream', itemType: 'event', batchSize: 100, maxRecordAgeSeconds: 12 * 60 * 60, failuresTo: 'events' },
    memory: 256,
    timeout: 30,
    sends: ['events', 'removals'],
    readsOnly: true,
  },
  {
    name: 'workers/webhook-delivery',
    trigger: { type: 'queue', queue: 'events', batchSize: 10 },
    memory: 512,
    timeout: 30,
    sends: ['events'],
    secrets: ['webhooks'],
  },
  // A deleted payment method's event also reaches the removals queue (from the stream): its worker removes the card's
  // tokens at each connector account, retried until done.
  {
    name: 'workers/payment-method-removal',
    trigger: { type: 'queue', queue: 'removals', batchSize: 5 },
    memory: 512,
    timeout: 60,
    secrets: ['credentials'],
  },
  {
    name: 'workers/renewal-scanner',
    trigger: { type: 'schedule', expression: 'rate(1 hour)', everyMinutesLocally: 1 },
    memory: 512,
    timeout: 60,
    sends: ['renewals'],
    readsOnly: true,
  },
  {
    name: 'workers/renewal',
    trigger: { type: 'queue', queue: 'renewals', batchSize: 5 },
    memory: 512,
    timeout: 30,
    sends: ['email'],
    vault: 'decrypt',
    secrets: ['links', 'fingerprints', 'credentials'],
  },
  {
    name: 'workers/test-clock-advance',
    trigger: { type: 'queue', queue: 'clocks', batchSize: 1 },
    memory: 512,
    timeout: 300,
    sends: ['email'],
    vault: 'decrypt',
    secrets: ['links', 'fingerprints', 'credentials'],
  },
  {
    name: 'workers/daily-settlement',
    trigger: { type: 'schedule', expression: 'cron(0 2 * * ? *)', everyMinutesLocally: 5 },
    memory: 512,
    timeout: 300,
  },
  {
    name: 'workers/daily-reconciliation',
    trigger: { type: 'schedule', expression: 'cron(0 3 * * ? *)', everyMinutesLocally: 5 },
    memory: 256,
    timeout: 60,
    sends: ['reconciliations'],
  },
  {
    name: 'workers/reconcile-account',
    trigger: { type: 'queue', queue: 'reconciliations', batchSize: 1 },
    memory: 512,
    timeout: 300,
    secrets: ['credentials'],
  },
  {
    name: 'workers/reconciler',
    trigger: { type: 'schedule', expression: 'rate(1 minute)', everyMinutesLocally: 1 },
    memory: 512,
    timeout: 60,
    sends: ['email', 'messages', 'clocks'],
    secrets: ['links', 'credentials'],
  },
];

export type HttpFunctionSpec = FunctionSpec & { trigger: Extract<Trigger, { type: 'http' }> };

export const httpFunctions = (): HttpFunctionSpec[] => catalog.filter((f): f is HttpFunctionSpec => f.trigger.type === 'http');

export const handlerFile = (name: string): string => `functions/${name}.ts`;
