/**
 * Generated from the catalog: every merchant endpoint called by every role's session, the secret key, and restricted
 * keys holding the endpoint's group (read, write) or every grantable group but it. Where the role table (or a key's
 * grants) lacks the endpoint's permission the answer is 403 permission_error; elsewhere anything but 401/403/5xx
 * (a minimal request: a 400 for the empty body, a 404 for an absent id are fine). A 403 before a 400 also shows the
 * step runs before validation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { handlerFile, type HttpFunctionSpec, httpFunctions } from '../../functions/catalog.ts';
import { createApiKey } from '../../shared/domain/api-keys.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { newId } from '../../shared/model/ids.ts';
import {
  allows,
  GRANTABLE,
  type Grants,
  type Group,
  type Permission,
  permissionParts,
  ROLE_EXCLUSIONS,
  ROLE_GRANTS,
  ROLES,
  SECRET_KEY_GRANTS,
} from '../../shared/model/permissions.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf } from '../support/merchant.ts';

// a session's own endpoints (sign-out, accepting an invitation) act on the session, not on a merchant's data: team.test.ts
const endpoints = httpFunctions().filter((f) => f.trigger.auth !== 'public' && f.trigger.auth !== 'session');

interface Caller {
  name: string;
  credential: string;
  /** whether the role table or the key's grants let it call `spec` */
  may: (spec: HttpFunctionSpec) => boolean;
}

const route = (spec: HttpFunctionSpec) => `${spec.trigger.method} ${spec.trigger.path}`;
const permissionOf = (spec: HttpFunctionSpec): Permission => spec.trigger.permission!;

describe('every merchant endpoint checks the permission the catalog names', () => {
  const callers: Caller[] = [];
  /** per group: restricted keys holding it to read, to write, and holding every other grantable group */
  const keysFor = new Map<Group, Caller[]>();

  beforeAll(async () => {
    const demo = await newMerchant({ payments: false });
    for (const role of ROLES) {
      const credential = await sessionOf(demo.merchantId, role);
      const may = (spec: HttpFunctionSpec) => {
        const permission = permissionOf(spec);
        return allows(ROLE_GRANTS[role], permission) && !ROLE_EXCLUSIONS[role]?.includes(route(spec));
      };
      callers.push({ name: `the ${role} role`, credential, may });
    }
    callers.push({ name: 'a secret key', credential: demo.apiKey, may: (spec) => grantsAllow(SECRET_KEY_GRANTS, spec) });
    const restricted = async (name: string, permissions: Grants): Promise<Caller> => {
      const { key } = await createApiKey(demo.merchantId, { name, mode: 'test', type: 'restricted', permissions });
      return { name: `a restricted key with ${JSON.stringify(permissions)}`, credential: key!, may: (spec) => grantsAllow(permissions, spec) };
    };
    const groups = [...new Set(endpoints.map((spec) => permissionOf(spec)))].map((p) => permissionParts(p).group);
    for (const group of new Set(groups)) {
      const others = Object.fromEntries(GRANTABLE.filter((g) => g !== group).map((g) => [g, 'write'])) as Grants;
      const holding = GRANTABLE.includes(group)
        ? [await restricted('reads', { [group]: 'read' }), await restricted('writes', { [group]: 'write' })]
        : [];
      keysFor.set(group, [...holding, await restricted('all but', others)]);
    }
  }, 120_000);

  const grantsAllow = (grants: Grants, spec: HttpFunctionSpec) => allows(grants, permissionOf(spec));

  it.each(endpoints.map((spec) => [spec.name, spec] as const))('%s', async (_name, spec) => {
    // Prepare: a minimal request (an id of the right kind that names nothing, an empty body)
    const { handler } = (await import(/* @vite-ignore */ `../../${handlerFile(spec.name)}`)) as { handler: HttpHandler };
    const params = Object.fromEntries(Object.entries(handler.options.params ?? {}).map(([name, entity]) => [name, newId(entity)]));
    const path = spec.trigger.path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name]!);
    const permission = permissionOf(spec);
    const group = permission && permissionParts(permission).group;
    const everyone = [...callers, ...(group ? keysFor.get(group)! : [])];
    // Act
    const answers = [];
    for (const caller of everyone) {
      const event = apiEvent({
        method: spec.trigger.method,
        path,
        resource: spec.trigger.path,
        pathParameters: Object.keys(params).length > 0 ? params : null,
        headers: bearer(caller.credential),
        ...(spec.trigger.method === 'POST' || spec.trigger.method === 'PUT' ? { body: {} } : {}),
      });
      const res = await invokeHttp(handler, event);
      answers.push({ caller: caller.name, status: res.status, code: res.body?.error?.code as string | undefined, refused: !caller.may(spec) });
    }
    // Assess: 403 permission_denied exactly where refused; elsewhere the request got past authentication and the check
    const wrong = answers.filter(({ status, code, refused }) =>
      refused ? status !== 403 || code !== 'permission_denied' : status === 401 || status === 403 || status >= 500,
    );
    expect(wrong).toEqual([]);
    expect(answers.some((a) => a.refused)).toBe(true);
  });
});
