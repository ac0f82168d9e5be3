import { AsyncLocalStorage } from 'node:async_hooks';
import type { Role } from './permissions.ts';
import type { Owner } from './targets.ts';

/** How long the table keeps an audit entry (its TTL), in days. */
export const AUDIT_RETENTION_DAYS = 400;

/** Who made an audited change: a person (a session's member) or an API key (never the key itself). */
export interface AuditActor {
  type: 'user' | 'api_key';
  /** the `usr_` or the `key_` */
  id: string;
  email?: string;
  role?: Role;
  key_last4?: string;
}

/** What an audited request's entry says, apart from what its change changed. */
export interface AuditRequest {
  /** whose log keeps the entry: the merchant in the mode the request acted in */
  owner: Owner;
  /** the catalog's operation with dots, e.g. `payments.refund` */
  action: string;
  actor: AuditActor;
  /** the object the path names (a refund's names the payment); absent: what the change creates, if it names one */
  object_id?: string;
  request_id: string;
  ip: string;
  user_agent: string | null;
}

interface Scope {
  request: AuditRequest;
  /** a commit took the entry (and keeps it, once committed); only the first commit of a request carries it */
  taken: boolean;
  /** the request is still running: work it left behind (a promise not awaited) writes no entry */
  open: boolean;
}

/**
 * The audited request a commit runs in. A request scope rather than a parameter: the HTTP chain knows who, what and
 * where, `commit` alone writes, and every use case in between stays as it is; work outside a request has none.
 */
const scope = new AsyncLocalStorage<Scope>();

/** Runs `work` (a request's function) with its audit entry pending for the first commit it makes. */
export async function audited<T>(request: AuditRequest, work: () => Promise<T>): Promise<T> {
  const current: Scope = { request, taken: false, open: true };
  try {
    return await scope.run(current, work);
  } finally {
    current.open = false;
  }
}

/**
 * Takes the pending entry for a commit about to be sent: the request, and `release` to give it back when that commit
 * writes nothing (refused or failed), so the request's next commit carries it. Undefined when none is pending.
 */
export function takeAudit(): { request: AuditRequest; release: () => void } | undefined {
  const current = scope.getStore();
  if (!current || current.taken || !current.open) return undefined;
  current.taken = true;
  return { request: current.request, release: () => (current.taken = false) };
}
