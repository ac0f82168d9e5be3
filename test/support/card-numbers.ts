/**
 * Finds card numbers in what the suite leaves behind (test/card-scan): table items, queue messages, log lines.
 * Pure functions, unit-tested in test/unit/card-numbers.test.ts.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { inflateRawSync } from 'node:zlib';
import { luhnValid } from '../../shared/model/cards.ts';
import { unpack } from '../../shared/store/stored-form.ts';

/** Visa 4, Mastercard 5 and 2221–2720, Amex/Diners/JCB 3, Discover/UnionPay 6: a 13-digit ms timestamp starts with 1. */
const hasBrandPrefix = (digits: string): boolean =>
  /^[3-6]/.test(digits) || (Number(digits.slice(0, 4)) >= 2221 && Number(digits.slice(0, 4)) <= 2720);

/**
 * A network transaction id is 15 random digits (the sandbox provider's and the fakes'), so one in 25 looks like a
 * card. It is recognised by its field's name and exact shape, never by value: anything else there is still searched.
 */
const NETWORK_ID_FIELD = /("(?:network_transaction_id|networkTransactionId|networkTxReference)"\s*:\s*")\d{15}"/g;

/**
 * The digit strings of `text` that could be a card number, 13–19 digits: every run of digits on its own, and runs of
 * groups joined by one kind of separator (space or dash) the way cards are printed (4-4-4-4, 4-6-5): a first group
 * of 4 digits, the others of 3–6. A longer run of digits holds no card number: its slices are not searched.
 * With `tokensOnly`, a group glued to a letter (a hex hash, a UUID, an id) or after a decimal point (the digits of a
 * `Math.random()` in a test's idempotency key) is not one: a card number stands apart from letters.
 */
function candidates(text: string, tokensOnly: boolean): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\d+(?:[ -]\d+)*/g)) {
    let groups = match[0].split(/[ -]/);
    let separators = match[0].replace(/\d/g, '');
    const end = match.index + match[0].length;
    if (tokensOnly && /(\p{L}|\d\.)$/u.test(text.slice(Math.max(0, match.index - 2), match.index))) {
      groups = groups.slice(1);
      separators = separators.slice(1);
    }
    if (tokensOnly && /^(\p{L}|\.\d)/u.test(text.slice(end, end + 2))) {
      groups = groups.slice(0, -1);
      separators = separators.slice(0, -1);
    }
    for (const group of groups) if (group.length >= 13 && group.length <= 19) found.push(group);
    for (let first = 0; first < groups.length; first++) {
      if (groups[first]!.length !== 4) continue;
      let digits = groups[first]!;
      for (let next = first + 1; next < groups.length; next++) {
        const group = groups[next]!;
        if (group.length < 3 || group.length > 6 || separators[next - 1] !== separators[first]) break;
        digits += group;
        if (digits.length > 19) break;
        if (digits.length >= 13) found.push(digits);
      }
    }
  }
  return found;
}

/** Card numbers in `text`: Luhn-valid candidates with a brand's prefix. */
export const cardNumbersIn = (text: string): string[] =>
  candidates(text.replace(NETWORK_ID_FIELD, '$1network id"'), true).filter((digits) => hasBrandPrefix(digits) && luhnValid(digits));

/** Any Luhn-valid run of 13–19 digits, brand or not, glued to letters or not: what the vault must never hold in clear. */
export const luhnRunsIn = (text: string): string[] => candidates(text, false).filter(luhnValid);

/** A number as a failure may print it: its first 6 and last 4 digits, as PCI DSS allows. */
export const masked = (digits: string): string => `${digits.slice(0, 6)}${'•'.repeat(digits.length - 10)}${digits.slice(-4)}`;

/**
 * Bytes as their reader would read them: a packed field (store/stored-form.ts) or a deflated event payload
 * (store/events.ts) inflated and parsed, anything else as text.
 */
function readableBytes(bytes: Uint8Array): unknown {
  for (const read of [() => unpack(bytes), () => JSON.parse(inflateRawSync(bytes).toString('utf8')), () => inflateRawSync(bytes).toString('utf8')]) {
    try {
      return read();
    } catch {
      // not that encoding
    }
  }
  return Buffer.from(bytes).toString('latin1');
}

/** A DynamoDB attribute value as plain data: numbers as their exact digits, binary values decoded. */
export function readable(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  if (value.B !== undefined) return readableBytes(value.B);
  if (value.SS !== undefined) return value.SS;
  if (value.NS !== undefined) return value.NS;
  if (value.BS !== undefined) return value.BS.map(readableBytes);
  if (value.L !== undefined) return value.L.map(readable);
  if (value.M !== undefined) return readableItem(value.M);
  return value.BOOL ?? null;
}

export const readableItem = (item: Record<string, AttributeValue>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, readable(value)]));

const CARD_FIELD = /^(cvc|cvv|card_number|number)$/i;

/**
 * Paths of fields named like a CVC or a card number whose value is digits (spaces and dashes allowed), at any depth.
 * A CVC has no pattern of its own: outside the vault no such field may exist at all. (An invoice's `INV-000042` is not
 * digits.)
 */
export function cardFieldsIn(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((entry, i) => cardFieldsIn(entry, `${path}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, field]) => {
    const at = path ? `${path}.${name}` : name;
    const digits = (typeof field === 'string' || typeof field === 'number') && /^[\d -]*\d[\d -]*$/.test(String(field));
    return [...(CARD_FIELD.test(name) && digits ? [at] : []), ...cardFieldsIn(field, at)];
  });
}
