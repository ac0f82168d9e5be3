import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFunctions, type HttpFunctionSpec } from '../../functions/catalog.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import type { DemoMerchant } from '../../shared/domain/demo.ts';
import { DOCUMENTED_400_CODES } from '../support/error-codes.ts';
import { newMerchant } from '../support/merchant.ts';
import { rawRequest, type RawResponse } from '../support/raw-http.ts';
import { startTestGateway } from '../support/runtime.ts';

/**
 * Malformed requests to every HTTP function of the catalog, through the local gateway and the real handlers (against
 * the run's DynamoDB Local): odd bodies (wrong types, huge numbers, nesting 10,000 deep, invalid UTF-8, 70 KB,
 * arrays, null), odd headers (content types, prototype names, repeats, large values), odd query keys and values,
 * malformed ids in paths, with and without a valid API key and an Idempotency-Key.
 *
 * Every answer must be below 500, and every error must have the documented shape with the request id.
 * Seeded: a failure prints the seed and the requests; `FUZZ_SEED=<seed> npx vitest run test/e2e/fuzz.test.ts`
 * replays them (`FUZZ_RUNS` changes the count).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 1_123_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const CONCURRENCY = 6;
const MERCHANTS = 3;

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__'];
const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'card_error',
  'rate_limit_error',
  'idempotency_error',
  'api_error',
];

interface FuzzRequest {
  name: string;
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: Buffer;
}

// ---------------------------------------------------------------------------------------------------------------
// Generators

/** Percent-encodes, and turns what cannot be encoded (a lone surrogate) into an invalid UTF-8 escape. */
const encode = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};
/** Sent as typed where HTTP allows it in a request target, encoded elsewhere. */
const rawish = (s: string): string => s.replace(/[^\x21-\x7e]|[#?/]/gu, (c) => encode(c));

const anyString = (maxLength: number) =>
  fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'binary', maxLength }), fc.string({ unit: 'grapheme', maxLength }));

const idArb = (known: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    fc.constantFrom(...PROTO_NAMES),
    fc.constantFrom(
      'pay_',
      'cus_01',
      `pay_${'z'.repeat(26)}`,
      `PAY_01JD${'0'.repeat(22)}`,
      '%00',
      '%ZZ',
      '%E0%A4%A',
      '..',
      '.',
      '%2F..%2F',
      'null',
      '-1',
      '1e309',
      '%20',
      '%C0%AF',
    ),
    fc
      .tuple(fc.constantFrom('pay_', 'cus_', 'inv_', 'sub_', 'key_', 'rule_', 'whk_', 'stl_', 'evt_', ''), fc.stringMatching(/^[0-9a-zA-Z]{0,32}$/))
      .map(([prefix, rest]) => prefix + rest),
    anyString(40).map(encode),
    fc.string({ minLength: 300, maxLength: 1500 }).map(encode),
  );

const queryKeyArb = fc.oneof(
  fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom(
    'limit',
    'starting_after',
    'ending_before',
    'currency',
    'status',
    'customer',
    'event',
    'delivered',
    'period',
    'from',
    'to',
    'expires',
    'signature',
    'created[gte]',
    'limit[]',
    'a[b][c]',
    '',
  ),
  anyString(20),
);
const queryValueArb = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e309',
    '99999999999999999999',
    'NaN',
    'Infinity',
    'true',
    'null',
    '[]',
    '{}',
    'eur',
    'EUR',
    '%',
    '%ZZ',
    '%00',
    '+',
    'pay_',
    '2026-02-30',
  ),
  fc.integer().map(String),
  anyString(30),
  fc.string({ minLength: 500, maxLength: 2500 }),
);
const queryArb = fc
  .array(fc.tuple(queryKeyArb, queryValueArb, fc.boolean()), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v, raw]) => (raw ? `${rawish(k)}=${rawish(v)}` : `${encode(k)}=${encode(v)}`)).join('&'));

/** Header values HTTP can carry: visible ASCII, spaces and tabs inside. */
const headerValue = (maxLength: number) => fc.string({ maxLength }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());
const headerNameArb = fc.oneof(
  fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom(
    'Content-Type',
    'content-type',
    'Idempotency-Key',
    'idempotency-key',
    'Authorization',
    'X-Forwarded-For',
    'X-Forwarded-Proto',
    'X-Forwarded-Host',
    'Accept',
    'Accept-Encoding',
    'Content-Encoding',
    'Origin',
    'Cookie',
    'X-Amzn-Trace-Id',
    'User-Agent',
    'Request-Id',
  ),
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,30}$/),
);
const extraHeadersArb = fc.array(
  fc.tuple(headerNameArb, fc.oneof({ weight: 5, arbitrary: headerValue(60) }, fc.constant('x'.repeat(3000)), fc.constantFrom(...PROTO_NAMES))),
  { maxLength: 6 },
);

const contentTypeArb = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=latin1',
    'application/json, text/plain',
    'application/jsonx',
    'application/merge-patch+json',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '*/*',
    '',
    ';',
    'application/json;;;charset==',
  ),
  { freq: 5 },
);

const FIELDS = [
  'amount',
  'currency',
  'payment_method',
  'customer',
  'customer_id',
  'email',
  'name',
  'phone',
  'metadata',
  'items',
  'url',
  'events',
  'event',
  'webhook_id',
  'channel',
  'reason',
  'conditions',
  'provider',
  'priority',
  'tax_rate',
  'due_date',
  'interval',
  'plan',
  'mode',
  'otp',
  'request_id',
  'routing',
  'card',
  'number',
  'exp_month',
  'exp_year',
  'cvc',
  'quantity',
  'status',
  'limit',
];
const oddValue = fc.oneof(
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 53 + 1,
    -0,
    0.1,
    -1,
    0,
    99_999_999,
    100_000_000,
    true,
    false,
    null,
    '',
    ' ',
    [],
    {},
    '1e309',
    'NaN',
    'EUR',
    'eur',
    'xxx',
  ),
  fc.jsonValue({ maxDepth: 3 }),
  anyString(40),
  fc.constantFrom(...PROTO_NAMES),
  fc.string({ minLength: 300, maxLength: 1000 }),
);
const wrongTypedObject = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, fc.constantFrom(...PROTO_NAMES)), oddValue), { maxLength: 8 })
  .map((entries) => {
    // A JSON text, so `__proto__` is an ordinary key as a client would send it.
    const members = entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`);
    return `{${members.join(',')}}`;
  });

const deep = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);
const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: wrongTypedObject.map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        deep(10_000, '[', ']'),
        deep(10_000, '{"a":', '}').replace(/\}$/, '1}'),
        `{"a":${deep(5000, '[', ']')}}`,
        `{"metadata":${deep(2000, '{"k":', '}').replace(/\}$/, '1}')}}`,
        deep(10_000, '[', ''),
        '{"amount":1e309}',
        '{"amount":123456789012345678901234567890}',
        '{"amount":-0,"currency":"eur"}',
        '{"amount":4999.5,"currency":"eur"}',
        'null',
        '[]',
        '[{}]',
        '""',
        'true',
        '0',
        '{',
        '{"a":1,}',
        '\uFEFF{}',
        '{"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":1}}}',
        `{"name":"${'a'.repeat(70 * 1024)}"}`,
        `[${'1,'.repeat(35 * 1024)}1]`,
        `{"metadata":{${Array.from({ length: 60 }, (_, i) => `"k${i}":"v"`).join(',')}}}`,
        'a=1&b=2',
        ' ',
      )
      .map((s) => Buffer.from(s)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      // invalid UTF-8 inside and outside JSON strings, overlong encodings, lone surrogates (CESU)
      Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
      Buffer.from([0x7b, 0x22, 0x65, 0x6d, 0x61, 0x69, 0x6c, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x40, 0x61, 0x2e, 0x62, 0x22, 0x7d]),
      Buffer.from([0xc0, 0xaf, 0x7b, 0x7d]),
      Buffer.from([0xff, 0xff, 0xff]),
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
);

type AuthChoice = 'valid' | 'none' | 'bogus' | 'lowercase' | 'twice' | 'basic' | 'huge' | 'empty';
const authArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<AuthChoice>('valid') },
  { weight: 4, arbitrary: fc.constantFrom<AuthChoice>('none', 'bogus', 'lowercase', 'twice', 'basic', 'huge', 'empty') },
);
const idempotencyArb = fc.option(fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'a'.repeat(300), 'x'.repeat(5000), ...PROTO_NAMES), headerValue(60)), {
  freq: 2,
});

function requestArb(specs: HttpFunctionSpec[], merchants: DemoMerchant[]): fc.Arbitrary<FuzzRequest> {
  const known = merchants.flatMap((m) => [m.customerId, m.paymentId!, m.capturedPaymentId!, m.apiKeyId]);
  return fc
    .record({
      spec: fc.constantFrom(...specs),
      merchant: fc.nat(merchants.length - 1),
      ids: fc.array(idArb(known), { minLength: 1, maxLength: 1 }),
      query: fc.option(queryArb, { freq: 2 }),
      auth: authArb,
      idempotencyKey: idempotencyArb,
      contentType: contentTypeArb,
      extra: extraHeadersArb,
      body: bodyArb,
      shuffle: fc.boolean(),
    })
    .map(({ spec, merchant, ids, query, auth, idempotencyKey, contentType, extra, body, shuffle }) => {
      const key = merchants[merchant]!.apiKey;
      const path = spec.trigger.path.replace(/\{[^}]+\}/g, () => ids[0]!);
      const headers: Array<[string, string]> = [];
      const authorization: Record<AuthChoice, Array<[string, string]>> = {
        valid: [['Authorization', `Bearer ${key}`]],
        none: [],
        bogus: [['Authorization', 'Bearer sk_test_00000000000000000000000000000000000000000000']],
        lowercase: [['authorization', `bearer ${key}`]],
        twice: [
          ['Authorization', `Bearer ${key}`],
          ['authorization', 'Bearer sess_bogus'],
        ],
        basic: [['Authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`]],
        huge: [['Authorization', `Bearer ${'k'.repeat(4000)}`]],
        empty: [['Authorization', '']],
      };
      headers.push(...authorization[auth]);
      if (idempotencyKey !== null) headers.push(['Idempotency-Key', idempotencyKey]);
      if (contentType !== null) headers.push(['Content-Type', contentType]);
      headers.push(...extra);
      if (shuffle) headers.reverse();
      return { name: spec.name, method: spec.trigger.method, path: query === null ? path : `${path}?${query}`, headers, body };
    });
}

/**
 * Cases chance may miss, to every function: deep nesting, a 70 KB body, a prototype-polluting body and a valid body
 * with a deeply nested unknown field, each with a valid key, JSON content type and an Idempotency-Key (so the request reaches the idempotency layer).
 */
function pinned(specs: HttpFunctionSpec[], merchant: DemoMerchant): FuzzRequest[] {
  const bodies = [
    deep(10_000, '[', ']'),
    `{"amount":${deep(10_000, '{"a":', '}').replace(/\}$/, '1}')}}`,
    `{"name":"${'a'.repeat(70 * 1024)}"}`,
    '{"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":1}}}',
    // Fields several creates accept (customers, api keys, routing simulate, capture…) plus an unknown field nested
    // 10,000 deep: valid, so the request gets past validation to the idempotency layer, which hashes the whole body.
    `{"email":"fuzz@example.com","name":"Fuzz","mode":"test","amount":100,"currency":"usd","event":"payment.succeeded","extra":${deep(10_000, '[', ']')}}`,
  ];
  return specs.flatMap((spec) =>
    bodies.map((body, i) => ({
      name: spec.name,
      method: spec.trigger.method,
      path: spec.trigger.path.replace(/\{[^}]+\}/g, merchant.paymentId!),
      headers: [
        ['Authorization', `Bearer ${merchant.apiKey}`],
        ['Content-Type', 'application/json'],
        ['Idempotency-Key', `pinned-${SEED}-${spec.name}-${i}`],
      ] satisfies Array<[string, string]>,
      body: Buffer.from(body),
    })),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

/** What is wrong with an answer, or undefined when it is fine. */
function problemWith(res: RawResponse): string | undefined {
  if (res.status >= 500) return `status ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`;
  if (res.status < 400) return undefined;
  const requestId = res.headers['request-id'];
  // a hosted page's error is a page for the shopper: with the request id and a CSP, and no validator internals
  if (String(res.headers['content-type']).startsWith('text/html')) {
    const text = res.body.toString('utf8');
    if (!requestId) return `error page without a Request-Id header: ${text.slice(0, 300)}`;
    if (!res.headers['content-security-policy']) return `error page without a Content-Security-Policy: ${text.slice(0, 300)}`;
    if (/\(expected |: Expected .+ but received /.test(text)) return `validator internals in the page: ${text.slice(0, 300)}`;
    return undefined;
  }
  const error = (res.json as { error?: Record<string, unknown> } | undefined)?.error;
  if (!error) return `status ${res.status} without an error object: ${res.body.toString('utf8').slice(0, 300)}`;
  if (!ERROR_TYPES.includes(error.type as string)) return `unknown error type ${JSON.stringify(error.type)}`;
  if (typeof error.code !== 'string' || error.code === '') return `error without a code: ${JSON.stringify(error)}`;
  if (typeof error.message !== 'string' || error.message === '') return `error without a message: ${JSON.stringify(error)}`;
  if (/\bat .+\.(ts|js):\d+/.test(error.message)) return `stack trace in the message: ${error.message}`;
  if (res.status === 400 && !DOCUMENTED_400_CODES.has(error.code)) return `a 400 code docs/api.md does not name: ${error.code}`;
  // (the names of unknown query parameters are repeated as sent: only valibot's own phrasings are looked for here)
  if (/\(expected |: Expected .+ but received /.test(error.message)) return `validator internals in the message: ${error.message}`;
  if (typeof error.request_id !== 'string' || error.request_id === '') return `error without request_id: ${JSON.stringify(error)}`;
  if (error.request_id !== requestId) return `request_id ${String(error.request_id)} is not the Request-Id header ${String(requestId)}`;
  return undefined;
}

const describeRequest = (r: FuzzRequest) => {
  const body = r.body === undefined ? 'no body' : `${r.body.length} bytes: ${JSON.stringify(r.body.toString('latin1').slice(0, 120))}`;
  const headers = r.headers.map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 80)}… (${v.length} chars)` : v}`).join(' | ');
  const path = r.path.length > 200 ? `${r.path.slice(0, 200)}… (${r.path.length} chars)` : r.path;
  return `${r.method} ${path} [${r.name}] headers: ${headers} body: ${body}`;
};

// ---------------------------------------------------------------------------------------------------------------

describe(`fuzzing every HTTP function (${RUNS} random malformed requests and 5 pinned ones each, seed ${SEED})`, () => {
  let gateway: Gateway;
  let merchants: DemoMerchant[];
  beforeAll(async () => {
    [gateway, ...merchants] = await Promise.all([startTestGateway(), ...Array.from({ length: MERCHANTS }, () => newMerchant({ payments: true }))]);
  });
  afterAll(() => gateway?.close());

  it('never answers 500 or more, and every error has the documented shape with its request_id', { timeout: 360_000 }, async () => {
    // Prepare: the requests, reproducible from the seed; every catalog function at least RUNS / (2 × functions) times
    const specs = httpFunctions();
    const requests = [...fc.sample(requestArb(specs, merchants), { seed: SEED, numRuns: RUNS }), ...pinned(specs, merchants[0]!)];
    const perFunction = new Map<string, number>();
    for (const r of requests) perFunction.set(r.name, (perFunction.get(r.name) ?? 0) + 1);

    // Act: CONCURRENCY clients at once
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const client = async () => {
      while (next < requests.length) {
        const index = next++;
        const r = requests[index]!;
        let problem: string | undefined;
        try {
          const res = await rawRequest(gateway.url, { method: r.method, path: r.path, headers: r.headers, body: r.body });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          problem = problemWith(res);
        } catch (err) {
          problem = `no answer: ${(err as Error).message}`;
        }
        if (problem) problems.push(`#${index} ${problem}\n    ${describeRequest(r)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));

    // Assess
    expect(new Set(perFunction.keys())).toEqual(new Set(specs.map((s) => s.name)));
    const summary = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    expect(problems, `seed ${SEED}, statuses ${summary}:\n${problems.slice(0, 25).join('\n')}`).toEqual([]);
  });
});
