import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { actorOf } from '../domain/audit-log.ts';
import { ownerOf } from '../domain/auth.ts';
import type { AuditRequest } from '../model/audit.ts';
import type { Group } from '../model/permissions.ts';
import { stateOf } from './types.ts';

/** Groups whose every write is audited, whatever the credential (a person's writes are audited in every group). */
const AUDITED_GROUPS: ReadonlySet<Group> = new Set(['api_keys', 'team', 'connectors', 'routing', 'webhooks', 'settings']);

/** The permission group of an operation, by the first segment of its catalog name (`webhooks/configure`, `events/redeliver`). */
const GROUP_OF_AREA: Readonly<Record<string, Group>> = {
  'api-keys': 'api_keys',
  team: 'team',
  connectors: 'connectors',
  routing: 'routing',
  webhooks: 'webhooks',
  events: 'webhooks',
  settings: 'settings',
};

/** Not audited for anyone: the events and the payment's timeline hold it. */
const NEVER_AUDITED: ReadonlySet<string> = new Set(['payments/create']);

/**
 * Whether a request's change is audited (docs/api.md "Audit log"): every write of a person (a session), and every
 * write of a key to the groups above. Reads, payment creates, publishable keys and public endpoints are not.
 */
export function isAudited(operation: string | undefined, method: string, credential: string | undefined): operation is string {
  if (!operation || method === 'GET' || NEVER_AUDITED.has(operation)) return false;
  if (credential === 'session') return true;
  const group = GROUP_OF_AREA[operation.split('/')[0]!];
  return credential === 'api_key' && group !== undefined && AUDITED_GROUPS.has(group);
}

/**
 * The chain's step that prepares an audited request's entry (`state.audit`): who (the session's person or the key),
 * what (the catalog's operation, which API Gateway sends as `operationName`), on which object (the path's), from where.
 * The function then runs in its scope (shared/model/audit.ts), so its first commit writes the entry with the change.
 */
export const auditScope = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const state = stateOf(request);
    const event = request.event;
    const operation = (event.requestContext as { operationName?: string } | undefined)?.operationName;
    const merchant = state.merchant;
    if (!merchant || !isAudited(operation, event.httpMethod, merchant.credential)) return;
    const audit: AuditRequest = {
      owner: ownerOf(merchant),
      action: operation.replaceAll('/', '.'),
      actor: await actorOf(merchant),
      ...(state.pathTarget ? { object_id: state.pathTarget.id } : {}),
      request_id: state.requestId,
      ip: state.sourceIp,
      user_agent: event.headers?.['user-agent'] ?? event.requestContext?.identity?.userAgent ?? null,
    };
    state.audit = audit;
  },
});
