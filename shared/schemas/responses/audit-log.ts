/** The audit log as the API returns it (shared/domain/audit-log.ts). */
import * as v from 'valibot';
import { ROLES } from '../../model/permissions.ts';
import { Email, Id, list, Livemode, Timestamp } from './common.ts';

export const AuditEntry = v.object({
  id: Id('auditEntry'),
  object: v.literal('audit_entry'),
  action: v.pipe(v.string(), v.description('the operation, e.g. `payments.refund`, `auth.sign_in_failed`'), v.examples(['payments.refund'])),
  actor: v.object({
    type: v.picklist(['user', 'api_key']),
    id: v.pipe(v.string(), v.description('the person (`usr_…`) or the API key (`key_…`)'), v.examples(['key_01jq7k3v9qf2m7x4b6n5c0t1wz'])),
    email: v.optional(Email),
    role: v.optional(v.picklist(ROLES)),
    key_last4: v.optional(v.pipe(v.string(), v.length(4), v.examples(['x9Qa']))),
  }),
  object_id: v.pipe(
    v.nullable(v.string()),
    v.description('the object the request named (a refund names its payment)'),
    v.examples(['pay_01jq7k3v9qf2m7x4b6n5c0t1wz']),
  ),
  request_id: v.pipe(v.string(), v.description('the `Request-Id` of the response'), v.examples(['2207e25f-f761-493c-a705-bd5fa7331bae'])),
  ip: v.pipe(v.string(), v.examples(['203.0.113.10'])),
  user_agent: v.pipe(v.nullable(v.string()), v.examples(['curl/8.5.0'])),
  livemode: Livemode,
  created_at: Timestamp,
  changes: v.pipe(
    v.record(v.string(), v.object({ from: v.optional(v.unknown()), to: v.unknown() })),
    v.description('each field changed: `to` what it became, `from` where known; a secret shows as "[changed]"'),
    v.examples([{ status: { from: 'captured', to: 'refunded' } }]),
  ),
});

export const AuditLog = list(AuditEntry);
