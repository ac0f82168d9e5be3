/** Metadata that breaks each limit of docs/api.md "Requests" (50 keys, key ≤ 40 chars, value ≤ 500 chars). */
export const BAD_METADATA: [string, Record<string, string>][] = [
  ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))],
  ['a 41-char key', { ['k'.repeat(41)]: 'v' }],
  ['a 501-char value', { k: 'v'.repeat(501) }],
];

/** The most metadata allowed: 50 keys of 40 chars, each with a value of 500 chars. */
export const FULL_METADATA: Record<string, string> = Object.fromEntries(
  Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(38)}`, 'v'.repeat(500)]),
);
