import { type Answer, badParam, ok } from './answers.ts';
import { type Form, nested, text } from './form.ts';
import { list, searchResult, type StripeObject } from './objects.ts';

/** One page of a newest-first list: `limit` (1–100, default 10) after `starting_after`. */
export function page(url: string, matching: StripeObject[], query: Form): Answer {
  const limit = Number(text(query, 'limit') ?? 10);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return badParam('limit', 'limit must be an integer from 1 to 100');
  const after = text(query, 'starting_after');
  const start = after ? matching.findIndex((o) => o.id === after) + 1 : 0;
  return ok(list(url, matching.slice(start, start + limit), start + limit < matching.length));
}

/** `GET /v1/payment_intents` over `intents` (newest first), filtered by `created[gte|gt|lte|lt]` and `customer`. */
export function listIntents(intents: StripeObject[], query: Form): Answer {
  const created = nested(query, 'created');
  const bound = (key: string) => (text(created, key) === undefined ? undefined : Number(text(created, key)));
  const [gte, gt, lte, lt] = ['gte', 'gt', 'lte', 'lt'].map(bound);
  const customer = text(query, 'customer');
  const matching = intents.filter((pi) => {
    const at = Number(pi.created);
    const inRange =
      (gte === undefined || at >= gte) && (gt === undefined || at > gt) && (lte === undefined || at <= lte) && (lt === undefined || at < lt);
    return inRange && (!customer || pi.customer === customer);
  });
  return page('/v1/payment_intents', matching, query);
}

const unescape = (value: string) => value.replace(/\\(.)/g, '$1');

/**
 * `GET /v1/payment_intents/search` over `intents`: clauses `metadata['key']:'value'` or `status:'value'` joined by
 * AND. Like Stripe's it is eventually consistent: a PaymentIntent is searchable only `lagMs` after it was created.
 */
export function searchIntents(intents: StripeObject[], query: Form, lagMs: number): Answer {
  const tests: Array<(pi: StripeObject) => boolean> = [];
  for (const clause of (text(query, 'query') ?? '').split(/\s+AND\s+/)) {
    const match = /^(?:metadata\['((?:[^'\\]|\\.)+)'\]|(status)):'((?:[^'\\]|\\.)*)'$/.exec(clause.trim());
    if (!match) return badParam('query', `Invalid search query: ${clause}`);
    const [, key = '', status, value = ''] = match;
    tests.push(status ? (pi) => pi.status === unescape(value) : (pi) => (pi.metadata as Record<string, string>)[unescape(key)] === unescape(value));
  }
  const indexedBefore = (Date.now() - lagMs) / 1000;
  const found = intents.filter((pi) => Number(pi.created) <= indexedBefore && tests.every((test) => test(pi)));
  const limit = Number(text(query, 'limit') ?? 10);
  return ok(searchResult('/v1/payment_intents/search', found.slice(0, limit), found.length > limit));
}
