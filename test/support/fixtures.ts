/**
 * The one helper that loads JSON event fixtures (`events/http/<name>.json`, the same files `npm run invoke` uses).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { readFixture } from '../../infra/local/fixtures.ts';

/**
 * Load `events/http/<name>.json` (`customers-get` or `customers/get`) and fill its `{{PLACEHOLDERS}}`, e.g.
 * `loadFixture('customers-get', { API_KEY: key, CUSTOMER_ID: id })`. Unfilled placeholders stay as they are.
 */
export function loadFixture(name: string, placeholders: Record<string, string> = {}): APIGatewayProxyEvent {
  const file = `events/http/${name.replace(/\//g, '-').replace(/\.json$/, '')}.json`;
  return readFixture<APIGatewayProxyEvent>(file, placeholders).event;
}
