import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { actorOf } from '../domain/audit-log.ts';
import { ownerOf } from '../domain/auth.ts';
import type { AuditRequest } from '../model/audit.ts';
import { type Group, type Permission, permissionParts } from '../model/permissions.ts';
import { stateOf } from './types.ts';

/** Groups whose every write is audited, whatever the credential (a person's writes are audited in every group). */
const AUDITED_GROUPS: ReadonlySet<Group> = new Set(['api_keys', 'team', 'connectors', 'routing', 'webhooks', 'settings']);

/** Not audited for anyone: the events and the payment's timeline hold it. */
const NEVER_AUDITED: ReadonlySet<string> = new Set(['payments/create']);

/**
 * Whether a request's change is audited (docs/api.md "Audit log"): every write of a person (a session), and every
 * write of a key to the groups above (the endpoint's declared permission names its group). Reads, payment creates, publishable keys and public endpoints are not.
 */
export function isAudited(
  operation: string | undefined,
  method: string,
  credential: string | undefined,
  permission: Permission | undefined,
): operation is string {
  if (!operation || method === 'GET' || NEVER_AUDITED.has(operation)) return false;
  if (credential === 'session') return true;
  return credential === 'api_key' && permission !== undefined && AUDITED_GROUPS.has(permissionParts(permission).group);
}

/**
 * The chain's step that prepares an audited request's entry (`state.audit`): who (the session's person or the key),
 * what (the catalog's operation, which API Gateway sends as `operationName`), on which object (the path's), from where.
 * The function then runs in its scope (shared/model/audit.ts), so its first commit writes the entry with the change.
 */
export const auditScope = (permission: Permission | undefined): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    const event = request.event;
    const operation = (event.requestContext as { operationName?: string } | undefined)?.operationName;
    const merchant = state.merchant;
    if (!merchant || !isAudited(operation, event.httpMethod, merchant.credential, permission)) return;
    const audit: AuditRequest = {
      owner: ownerOf(merchant),
      action: operation.replaceAll('/', '.'),
      actor: actorOf(merchant),
      ...(state.pathTarget ? { object_id: state.pathTarget.id } : {}),
      request_id: state.requestId,
      ip: state.sourceIp,
      user_agent: event.headers?.['user-agent'] ?? event.requestContext?.identity?.userAgent ?? null,
    };
    state.audit = audit;
  },
});
