/**
 * THE list of Lambda functions. CDK, the local runtime, the fixture check (and later the OpenAPI document) read it.
 * Adding an endpoint = one line here + one handler file at `functions/<name>.ts`.
 * The function name is the handler path below `functions/`, e.g. `customers/get` → `functions/customers/get.ts`.
 */
export type Auth = 'public' | 'merchant';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type Trigger =
  | { type: 'http'; method: HttpMethod; path: string; auth: Auth }
  | { type: 'queue'; queue: QueueName; batchSize: number }
  | { type: 'schedule'; expression: string; everyMinutesLocally: number };

export type QueueName = 'events' | 'renewals';

export interface FunctionSpec {
  name: string;
  trigger: Trigger;
  /** MB */
  memory: number;
  /** seconds */
  timeout: number;
  /** queues this function sends to besides `events` (which every function may use for its outbox) */
  sendsTo?: QueueName[];
}

const API: Pick<FunctionSpec, 'memory' | 'timeout'> = { memory: 512, timeout: 10 };

const http = (method: HttpMethod, path: string, name: string, auth: Auth = 'merchant', limits: Partial<typeof API> = {}): FunctionSpec => ({
  name,
  trigger: { type: 'http', method, path, auth },
  ...API,
  ...limits,
});

export const catalog: readonly FunctionSpec[] = [
  http('POST', '/api/auth/request-otp', 'auth/request-otp', 'public'),
  http('POST', '/api/auth/verify-otp', 'auth/verify-otp', 'public'),

  http('GET', '/api/api-keys', 'api-keys/list'),
  http('POST', '/api/api-keys', 'api-keys/create'),
  http('PUT', '/api/api-keys/{id}/revoke', 'api-keys/revoke'),

  http('POST', '/api/customers', 'customers/create'),
  http('GET', '/api/customers', 'customers/list'),
  http('GET', '/api/customers/{id}', 'customers/get'),
  http('PUT', '/api/customers/{id}', 'customers/update'),

  http('POST', '/api/payments/create', 'payments/create'),
  http('GET', '/api/payments/list', 'payments/list'),
  http('GET', '/api/payments/{id}', 'payments/get'),
  http('POST', '/api/payments/{id}/capture', 'payments/capture'),
  http('POST', '/api/payments/{id}/void', 'payments/void'),
  http('POST', '/api/payments/{id}/refund', 'payments/refund'),

  http('POST', '/api/routing/simulate', 'routing/simulate'),
  http('GET', '/api/routing/rules', 'routing/rules/list'),
  http('POST', '/api/routing/rules', 'routing/rules/create'),
  http('PUT', '/api/routing/rules/{id}', 'routing/rules/update'),

  http('POST', '/api/webhooks/configure', 'webhooks/configure'),
  http('GET', '/api/webhooks', 'webhooks/list'),
  http('DELETE', '/api/webhooks/{id}', 'webhooks/delete'),
  http('GET', '/api/webhooks/events', 'webhooks/events'),
  // Delivers synchronously: up to the 15 s delivery timeout, within API Gateway's 29 s.
  http('POST', '/api/webhooks/test', 'webhooks/test', 'merchant', { timeout: 20 }),

  http('POST', '/api/subscriptions', 'subscriptions/create'),
  http('GET', '/api/subscriptions', 'subscriptions/list'),
  http('PUT', '/api/subscriptions/{id}/pause', 'subscriptions/pause'),
  http('PUT', '/api/subscriptions/{id}/resume', 'subscriptions/resume'),
  http('PUT', '/api/subscriptions/{id}/cancel', 'subscriptions/cancel'),

  http('POST', '/api/invoices', 'invoices/create'),
  http('GET', '/api/invoices', 'invoices/list'),
  http('GET', '/api/invoices/{id}', 'invoices/get'),
  http('PUT', '/api/invoices/{id}/send', 'invoices/send'),
  http('PUT', '/api/invoices/{id}/mark-paid', 'invoices/mark-paid'),
  // The customer's link: signed (HMAC, 7 days), no API key; renders the PDF on request.
  http('GET', '/api/invoices/{id}/pdf', 'invoices/pdf', 'public', { memory: 1024, timeout: 10 }),

  http('GET', '/api/balance', 'balance/get'),
  http('GET', '/api/settlements', 'settlements/list'),
  http('GET', '/api/settlements/{id}', 'settlements/get'),
  http('GET', '/api/analytics', 'analytics/overview'),
  http('GET', '/api/analytics/revenue', 'analytics/revenue'),
  http('GET', '/api/analytics/providers', 'analytics/providers'),

  // Background work. A queue's visibility timeout is at least 6× its worker's timeout (shared/queues.ts).
  { name: 'workers/webhook-delivery', trigger: { type: 'queue', queue: 'events', batchSize: 10 }, memory: 512, timeout: 30 },
  { name: 'workers/renewal-scanner', trigger: { type: 'schedule', expression: 'rate(1 hour)', everyMinutesLocally: 1 }, memory: 512, timeout: 60, sendsTo: ['renewals'] },
  { name: 'workers/renewal', trigger: { type: 'queue', queue: 'renewals', batchSize: 5 }, memory: 512, timeout: 30 },
  { name: 'workers/daily-settlement', trigger: { type: 'schedule', expression: 'cron(0 2 * * ? *)', everyMinutesLocally: 5 }, memory: 512, timeout: 300 },
  { name: 'workers/outbox-sweeper', trigger: { type: 'schedule', expression: 'rate(5 minutes)', everyMinutesLocally: 1 }, memory: 256, timeout: 60 },
];

export type HttpFunctionSpec = FunctionSpec & { trigger: Extract<Trigger, { type: 'http' }> };

export const httpFunctions = (): HttpFunctionSpec[] =>
  catalog.filter((f): f is HttpFunctionSpec => f.trigger.type === 'http');

export const handlerFile = (name: string): string => `functions/${name}.ts`;
