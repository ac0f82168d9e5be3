/**
 * The typed client the HTTP end-to-end tests use: `openapi-fetch` over the types `openapi-typescript` generated from
 * the OpenAPI document (`npm run openapi` → dist/openapi/api.ts), so a test that reads a field the document lacks
 * fails the typecheck; and every answer is checked against the document the API serves (`GET /api/openapi.json`),
 * so a response that drifts from it fails the test.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../dist/openapi/api.ts';
import type { OpenApiDocument } from '../../infra/openapi/document.ts';
import { responseChecker } from './openapi.ts';

export type Api = Client<paths>;
/** The document's schemas as types, e.g. `Schemas['Payment']`. */
export type Schemas = components['schemas'];

/** `api(credential?)`: a client of the API at `baseUrl`, sending `Authorization: Bearer <credential>` when given. */
export async function apiClient(baseUrl: string): Promise<(credential?: string) => Api> {
  const served = await fetch(`${baseUrl}/api/openapi.json`);
  if (!served.ok) throw new Error(`GET ${baseUrl}/api/openapi.json answered ${served.status}`);
  const check = responseChecker((await served.json()) as OpenApiDocument);
  const conforms: Middleware = {
    async onResponse({ request, response, schemaPath }) {
      const json = response.headers.get('content-type')?.startsWith('application/json');
      check(request.method, schemaPath, response.status, json ? await response.clone().json() : undefined);
    },
  };
  return (credential) => {
    const client = createClient<paths>({ baseUrl, headers: credential ? { Authorization: `Bearer ${credential}` } : {} });
    client.use(conforms);
    return client;
  };
}
