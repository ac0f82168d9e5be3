import * as v from 'valibot';
import type { OperationKind } from '../model/targets.ts';

/*
 * Pieces of the schemas of stored records. Every repository checks what it reads back from the table with the
 * schema of its record (the boundary, like a request): a record that does not match fails loudly, naming its kind
 * and the failing path, instead of flowing on. Unknown attributes (table keys, `type`) are dropped.
 */

export const Text = v.string();
export const Int = v.pipe(v.number(), v.integer());
export const nullable = <S extends v.GenericSchema>(schema: S) => v.nullable(schema);
/** A nullable field of an entity that does not store nulls (store/stored-form.ts): absent reads as null. */
export const nullOrAbsent = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema), null);

/** Metadata and the like: an object of strings (a `constructor` key included, see client.ts). */
export const StringMap = v.custom<Record<string, string>>(
  (m) => typeof m === 'object' && m !== null && !Array.isArray(m) && Object.values(m).every((x) => typeof x === 'string'),
  'an object of strings',
);

/**
 * A picklist of every member of the union `U`: the compiler refuses a list that misses one (or names another), so a
 * state added to a record's type cannot be forgotten by the schema that reads it back.
 */
export const picklistOf =
  <U extends string>() =>
  <const L extends readonly U[]>(options: L & ([U] extends [L[number]] ? unknown : { missing: Exclude<U, L[number]> })) =>
    v.picklist(options);

/** The external operation in flight on an item (store/commit.ts `Operation`), of the kinds its entity runs. */
export const operationItem = <const K extends readonly OperationKind[]>(kinds: K) =>
  v.object({
    id: Text,
    kind: v.picklist(kinds),
    lease_until: Int,
    provider: v.optional(Text),
    connector_id: v.optional(Text),
    reference: v.optional(Text),
    amount: v.optional(Int),
    currency: v.optional(Text),
    attempt: v.optional(Int),
    channel: v.optional(Text),
    to: v.optional(Text),
    awaiting: v.optional(v.boolean()),
    shopper_until: v.optional(Int),
  });

/** One change in an item's `history` (its timeline): when, what, who said so, and the provider's reference. */
export const HistoryItem = v.object({
  at: Text,
  change: Text,
  source: v.picklist(['api', 'provider_webhook', 'reconciler', 'schedule']),
  reference: nullable(Text),
});
export type HistoryEntry = v.InferOutput<typeof HistoryItem>;

/** A stored record that does not match its schema: `kind` names the record, `path` the first failing attribute. */
export class StoredRecordError extends Error {
  override readonly name = 'StoredRecordError';
  constructor(
    readonly kind: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_LISTED_ISSUES = 5;

/**
 * The reader of one kind of record: the item parsed by `schema`, or a StoredRecordError such as
 * `Stored invoice inv_… does not match its schema: status: Invalid type: Expected ("draft" | …) but received "void"`.
 */
export const recordReader =
  <S extends v.GenericSchema<unknown, unknown>>(kind: string, schema: S) =>
  (item: Record<string, unknown>): v.InferOutput<S> => {
    const result = v.safeParse(schema, item);
    if (result.success) return result.output;
    const pathOf = (issue: v.BaseIssue<unknown>) => v.getDotPath(issue) ?? '(item)';
    const issues = result.issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `${pathOf(issue)}: ${issue.message}`);
    if (result.issues.length > MAX_LISTED_ISSUES) issues.push(`and ${result.issues.length - MAX_LISTED_ISSUES} more`);
    const id = typeof item.id === 'string' ? ` ${item.id}` : '';
    throw new StoredRecordError(kind, pathOf(result.issues[0]), `Stored ${kind}${id} does not match its schema: ${issues.join('; ')}`);
  };
