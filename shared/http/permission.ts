import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PermissionDenied } from '../model/errors.ts';
import { inRanges } from '../model/ip-ranges.ts';
import { allows, type Permission, permissionParts, ROLE_EXCLUSIONS, ROLE_GRANTS } from '../model/permissions.ts';
import { stateOf } from './types.ts';

/**
 * The chain's step right after authentication (docs/api.md "Team, roles and restricted keys"): an API key used from
 * outside its `allowed_ips` is refused, then the endpoint's `permission` is compared with what the credential holds:
 * a key's grants (resolved with the key, no further read), a session's role (its member's, read with the session). A publishable key reaches only the endpoints that take one, so it holds no grants to check.
 */
export const permissionCheck = (permission: Permission): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    const merchant = state.merchant!;
    if (merchant.allowedIps && !inRanges(state.sourceIp, merchant.allowedIps))
      throw new PermissionDenied(`this key may not be used from ${state.sourceIp}`, 'ip_not_allowed');
    const { group, level } = permissionParts(permission);
    if (merchant.credential === 'api_key') {
      if (!allows(merchant.keyGrants ?? {}, permission)) throw new PermissionDenied(`this key lacks ${permission}`);
      return;
    }
    if (merchant.credential !== 'session') return;
    const role = merchant.user!.role;
    if (!allows(ROLE_GRANTS[role], permission)) throw new PermissionDenied(`the ${role} role cannot ${level} ${group.replace('_', ' ')}`);
    const route = `${request.event.httpMethod} ${request.event.resource}`;
    if (ROLE_EXCLUSIONS[role]?.includes(route)) throw new PermissionDenied(`the ${role} role cannot use ${route}`);
  },
});
