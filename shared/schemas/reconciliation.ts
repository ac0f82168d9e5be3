import * as v from 'valibot';
import { RESOLUTIONS } from '../domain/reconciliation-exceptions.ts';
import { EXCEPTION_KINDS } from '../model/reconciliation.ts';
import { idPattern } from '../model/ids.ts';
import { listQuery } from './common.ts';

/** Reconciliation exceptions: a list like every list, filtered by kind, connector account and status. */
export const ListExceptionsQuery = listQuery('reconciliationException', {
  kind: v.optional(v.picklist(EXCEPTION_KINDS)),
  connector_id: v.optional(v.pipe(v.string(), v.regex(idPattern('connector'), 'the id of a connector'))),
  status: v.optional(v.picklist(['open', 'resolved'])),
});

export const ResolveExceptionBody = v.object({
  resolution: v.pipe(v.picklist(RESOLUTIONS), v.examples(['adjusted' as const])),
  note: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1000), v.examples(['Stripe credited the difference on 2026-12-02']))),
});
