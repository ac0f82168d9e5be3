/**
 * Stripe's form encoding (`application/x-www-form-urlencoded` with brackets, as the SDK writes it):
 * `metadata[attempt_id]=k&payment_method_data[card][number]=4242…&allowed_payment_method_types[0]=card`
 * → `{ metadata: { attempt_id: 'k' }, payment_method_data: { card: { number: '4242…' } }, allowed_payment_method_types: ['card'] }`.
 * Values stay strings, as Stripe receives them.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type Form = { [key: string]: FormValue };

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

export function parseForm(text: string): Form {
  const root: Form = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const [head = '', ...rest] = name.split('[');
    const path = [head, ...rest.map((part) => part.replace(/\]$/, ''))];
    if (path.some((part) => UNSAFE.has(part))) continue;
    let node: Form = root;
    for (const [i, part] of path.entries()) {
      const key = part === '' ? String(Object.keys(node).length) : part;
      if (i === path.length - 1) node[key] = value;
      else node = (typeof node[key] === 'object' ? node[key] : (node[key] = {})) as Form;
    }
  }
  return arraysOf(root) as Form;
}

/** Objects whose keys are 0, 1, 2, … become arrays. */
function arraysOf(value: FormValue): FormValue {
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const entries = keys.map((k) => [k, arraysOf(value[k]!)] as const);
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return entries.map(([, v]) => v);
  return Object.fromEntries(entries);
}

/** A string field of a parsed form, or undefined. */
export const text = (form: Form, key: string): string | undefined => (typeof form[key] === 'string' ? (form[key] as string) : undefined);

/** A nested object field of a parsed form (empty when absent). */
export const nested = (form: Form, key: string): Form => {
  const value = form[key];
  return typeof value === 'object' && !Array.isArray(value) ? value : {};
};
