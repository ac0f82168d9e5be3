/**
 * The API's documentation on the local gateway:
 *   GET /api/openapi.json   the generated OpenAPI document (infra/openapi), its server being this gateway
 *   GET /docs               Swagger UI (swagger-ui-dist, served from node_modules) reading that document
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface StaticAnswer {
  contentType: string;
  body: string | Buffer;
}

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Payment orchestration API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });
  </script>
</body>
</html>
`;

/** The documentation routes; `baseUrl()` is where the gateway listens (known once it does). */
export function docsRoutes(baseUrl: () => string): (path: string) => Promise<StaticAnswer | undefined> {
  let document: Promise<string> | undefined;
  const openApiJson = async () => {
    const { buildOpenApi } = await import('../openapi/document.ts');
    return JSON.stringify(await buildOpenApi({ servers: [{ url: baseUrl(), description: 'This local runtime' }] }));
  };
  return async (path) => {
    if (path === '/api/openapi.json') {
      // Built once, on first request (it imports every handler); a failed build is tried again next time.
      document ??= openApiJson().catch((err: unknown) => {
        document = undefined;
        throw err;
      });
      return { contentType: 'application/json', body: await document };
    }
    if (path === '/docs' || path === '/docs/') return { contentType: 'text/html; charset=utf-8', body: PAGE };
    const asset = path.startsWith('/docs/') ? path.slice('/docs/'.length) : '';
    const contentType = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    return contentType ? { contentType, body: await readFile(join(SWAGGER_UI, asset)) } : undefined;
  };
}
