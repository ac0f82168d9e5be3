import { handler as createRule } from '../../functions/routing/rules/create.ts';
import { handler as deleteRule } from '../../functions/routing/rules/delete.ts';
import { handler as getRule } from '../../functions/routing/rules/get.ts';
import { handler as updateRule } from '../../functions/routing/rules/update.ts';
import { apiEvent, invokeHttp } from './lambda.ts';
import { bearer } from './merchant.ts';

/** Routing rules through their handlers, as the API calls them. */
export const rules = {
  create: (key: string, body: unknown, headers: Record<string, string> = {}) =>
    invokeHttp(createRule, apiEvent({ method: 'POST', path: '/api/routing/rules', headers: { ...bearer(key), ...headers }, body })),
  update: (key: string, id: string, body: unknown) =>
    invokeHttp(
      updateRule,
      apiEvent({
        method: 'PUT',
        path: `/api/routing/rules/${id}`,
        resource: '/api/routing/rules/{id}',
        pathParameters: { id },
        headers: bearer(key),
        body,
      }),
    ),
  get: (key: string, id: string) => invokeHttp(getRule, apiEvent({ method: 'GET', path: `/api/routing/rules/${id}`, headers: bearer(key) })),
  remove: (key: string, id: string) => invokeHttp(deleteRule, apiEvent({ method: 'DELETE', path: `/api/routing/rules/${id}`, headers: bearer(key) })),
};
