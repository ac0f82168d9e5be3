/**
 * Event fixtures (`events/http/*.json`, `events/sqs/*.json`, `events/schedule/*.json`, `events/dynamodb/*.json`) and
 * their placeholders.
 * A fixture may contain `{{API_KEY}}`, `{{MERCHANT_ID}}`, … which `invoke` and the tests fill in.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FunctionSpec } from '../../functions/catalog.ts';
import { projectRoot } from './lambda.ts';

const FOLDER = { http: 'http', queue: 'sqs', schedule: 'schedule', stream: 'dynamodb', invoke: 'invoke' } as const;

/** `customers/get` → `customers-get` */
export const fixtureBaseName = (functionName: string): string => functionName.replace(/\//g, '-');

/** The default fixture of a function, relative to the project root: `events/http/customers-get.json`. */
export function defaultFixturePath(spec: FunctionSpec): string {
  return `events/${FOLDER[spec.trigger.type]}/${fixtureBaseName(spec.name)}.json`;
}

/** `demoMerchantId` → `DEMO_MERCHANT_ID` */
const toPlaceholderName = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/**
 * Placeholder values from an object of strings, keys turned to UPPER_SNAKE: `{ apiKey, merchantId, email }` →
 * `{ API_KEY, MERCHANT_ID, EMAIL }`. So whatever the demo seed returns (e.g. a later `customerId`) is usable.
 */
export function placeholdersFrom(values: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') out[toPlaceholderName(k)] = v;
  return out;
}

const PLACEHOLDER = /\{\{\s*([A-Z0-9_]+)\s*\}\}/g;

/**
 * Replace `{{NAME}}` in raw fixture text (placeholders sit inside JSON strings, also inside the escaped JSON of a
 * `body`). Returns the text and the names left unresolved.
 */
export function fillPlaceholders(text: string, values: Record<string, string>): { text: string; missing: string[] } {
  const missing = new Set<string>();
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) {
      missing.add(name);
      return whole;
    }
    // Escaped for a JSON string. Ids, keys and e-mails need no escaping, so this also holds inside a `body`
    // that is itself escaped JSON.
    return JSON.stringify(value).slice(1, -1);
  });
  return { text: filled, missing: [...missing] };
}

/** Read a fixture file (absolute or project-relative), fill its placeholders, parse it. */
export function readFixture<T = unknown>(path: string, values: Record<string, string> = {}): { event: T; missing: string[]; path: string } {
  const absolute = resolve(projectRoot, path);
  const { text, missing } = fillPlaceholders(readFileSync(absolute, 'utf8'), values);
  return { event: JSON.parse(text) as T, missing, path: absolute };
}
