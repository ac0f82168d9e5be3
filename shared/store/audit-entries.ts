import { AUDIT_RETENTION_DAYS, type AuditRequest } from '../model/audit.ts';
import { clock } from '../model/clock.ts';
import { newId } from '../model/ids.ts';
import type { Target } from '../model/targets.ts';
import { ttl } from './client.ts';

/** A field's change in an entry: `to` what was written (null: removed), `from` where the change names it. */
export interface FieldChange {
  from?: unknown;
  to: unknown;
}

/** What `commit` tells the entry about one write of its change (the parts of Create and Update it reads). */
export interface WrittenFields {
  target: Target;
  /** a new item's fields */
  item?: Record<string, unknown>;
  set?: Record<string, unknown>;
  setIfAbsent?: Record<string, unknown>;
  unset?: readonly string[];
  expect?: Record<string, unknown>;
  transition?: { from: readonly string[]; to: string };
  /** a removed item */
  removed?: boolean;
}

/** Shown instead of any secret, key, credential or card data, before and after. */
export const CHANGED = '[changed]';
/** Fields an entry never shows (ids and bookkeeping the entry states itself) */
const NOT_CHANGES = new Set(['id', 'merchant_id', 'livemode', 'type', 'object', 'created_at', 'updated_at', 'last_used']);
/** Fields whose values are secret (a sealed secret, a credential, a key's hash, card data): shown as `[changed]`. */
const SECRET_FIELD = /secret|sealed|credential|hash|token|password|otp|cvc|card|fingerprint|publishable_key/i;
/** Values that are a key, a session token or a signing secret, wherever they appear. */
const SECRET_VALUE = /^(sk|rk|pk)_(live|test)_|^whsec_|^sess_/;

/** A value as an entry shows it: secrets inside it (by field name or by form) replaced by `[changed]`. */
function shown(field: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (SECRET_FIELD.test(field)) return CHANGED;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? CHANGED : value;
  if (value instanceof Uint8Array) return CHANGED;
  if (Array.isArray(value)) return value.map((entry) => shown('', entry));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, shown(name, inner)]));
  return value;
}

/** A stored field's name as the API shows it (`secret_sealed` → `secret`). */
const shownName = (field: string) => field.replace(/_sealed$/, '');

const idOf = (target: Target): string | undefined => ('id' in target ? target.id : undefined);

/**
 * The entry's `changes`: of the writes to the object it names (all writes when it names none), each field written
 * with what it became (`to`, null when removed) and, where the change's condition or transition names it, what it
 * was (`from`). Counters a change adds to and history it appends are not fields a person set: not shown.
 */
export function changesOf(writes: readonly WrittenFields[], objectId: string | undefined): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  const put = (field: string, change: FieldChange) => {
    if (NOT_CHANGES.has(field) || field.startsWith('gsi') || field === 'pk' || field === 'sk') return;
    const name = shownName(field);
    changes[name] = {
      ...('from' in change ? { from: shown(field, change.from) } : {}),
      to: shown(field, change.to),
    };
  };
  for (const write of writes) {
    if (objectId !== undefined && idOf(write.target) !== objectId) continue;
    for (const [field, value] of Object.entries(write.item ?? {})) put(field, { to: value });
    if (write.transition) {
      const [only, ...others] = write.transition.from;
      put('status', others.length === 0 ? { from: only, to: write.transition.to } : { to: write.transition.to });
    }
    for (const [field, value] of Object.entries({ ...write.setIfAbsent, ...write.set })) {
      const expected = write.expect && field in write.expect ? { from: write.expect[field] } : {};
      put(field, { ...expected, to: value });
    }
    for (const field of write.unset ?? []) put(field, { to: null });
    if (write.removed) put('deleted', { to: true });
  }
  return changes;
}

/**
 * The entry of an audited request's change, as a new item of its own (`commit` puts it in the change's transaction).
 * `object_id`: the path's object, else the first object the change creates or writes that has an id.
 */
export function auditEntryOf(
  request: AuditRequest,
  writes: readonly WrittenFields[],
  now = clock.now(),
): { target: Target; item: Record<string, unknown> } {
  const objectId = request.object_id ?? writes.map((write) => idOf(write.target)).find((id) => id !== undefined);
  const id = newId('auditEntry', now);
  const item = {
    id,
    object: 'audit_entry',
    merchant_id: request.owner.merchant_id,
    livemode: request.owner.livemode,
    action: request.action,
    actor: request.actor,
    /** the actor's id again, at the top, for a filter on another index */
    actor_id: request.actor.id,
    object_id: objectId ?? null,
    request_id: request.request_id,
    ip: request.ip,
    user_agent: request.user_agent,
    created_at: new Date(now).toISOString(),
    changes: changesOf(writes, objectId),
    expires_at: ttl(now + AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000),
  };
  const target: Target = { entity: 'audit_entry', id, owner: request.owner, actorId: request.actor.id, action: request.action, objectId };
  return { target, item };
}
