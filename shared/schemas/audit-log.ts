import * as v from 'valibot';
import { listQuery } from './common.ts';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO date-time, passed on in UTC with milliseconds (`2026-03-14T09:26:53.589Z`). */
const Time = (description: string) =>
  v.pipe(
    v.string(),
    v.check((s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)), 'an ISO date-time, e.g. 2026-03-14T09:26:53.589Z'),
    v.transform((s) => new Date(s).toISOString()),
    v.description(description),
  );

const range = {
  created_after: v.optional(Time('entries created at or after this time')),
  created_before: v.optional(Time('entries created before this time')),
};

const Token = (what: string, max: number) =>
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.:-]+$/, `${what}: letters, digits and _ . : -`), v.maxLength(max));

/** `GET /api/audit_log`: pagination, the actor's id (`usr_…`, `key_…`), the action (`payments.refund`), the object's id, a time range. */
export const ListAuditLogQuery = listQuery('auditEntry', {
  actor_id: v.optional(Token('an actor id', 64)),
  action: v.optional(Token('an action such as payments.refund', 100)),
  object_id: v.optional(Token('an object id', 64)),
  ...range,
});

/** `GET /api/audit_log/export`: a time range (every entry when absent). */
export const ExportAuditLogQuery = v.object(range);
