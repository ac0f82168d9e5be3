import { describe, expect, it } from 'vitest';
import { catalog, type HttpFunctionSpec } from '../../functions/catalog.ts';
import { matchRoute, methodsForPath } from '../../infra/local/router.ts';

const routes = [
  { method: 'GET', path: '/api/payments/list' },
  { method: 'GET', path: '/api/payments/{id}' },
  { method: 'POST', path: '/api/payments/{id}/refund' },
  { method: 'POST', path: '/api/payments/create' },
  { method: 'GET', path: '/api/customers' },
  { method: 'POST', path: '/api/customers' },
  { method: 'GET', path: '/api/customers/{id}' },
  { method: 'PUT', path: '/api/customers/{id}' },
  { method: 'PUT', path: '/api/api-keys/{id}/revoke' },
  { method: 'GET', path: '/api/files/{key+}' },
  { method: 'GET', path: '/api/files/special' },
  { method: 'ANY', path: '/api/echo' },
];

const match = (method: string, path: string) => matchRoute(routes, method, path);

describe('local router', () => {
  it('prefers a literal segment over a parameter', () => {
    // Act
    const list = match('GET', '/api/payments/list');
    const one = match('GET', '/api/payments/pay_01jd0000000000000000000000');
    // Assess
    expect(list).toEqual({ route: routes[0], resource: '/api/payments/list', pathParameters: null });
    expect(one).toEqual({ route: routes[1], resource: '/api/payments/{id}', pathParameters: { id: 'pay_01jd0000000000000000000000' } });
  });

  it('prefers the literal resource regardless of catalog order', () => {
    const reversed = [...routes].reverse();
    expect(matchRoute(reversed, 'GET', '/api/payments/list')?.resource).toBe('/api/payments/list');
  });

  it('chooses the resource by path first, then the method (no fallback to a less specific resource)', () => {
    // POST /api/payments/list: the resource is /api/payments/list, which has no POST → no route,
    // even though no POST /api/payments/{id} exists either; and GET /api/payments/create is not GET {id}.
    expect(match('POST', '/api/payments/list')).toBeNull();
    expect(match('GET', '/api/payments/create')).toBeNull();
    expect(methodsForPath(routes, '/api/payments/create')).toEqual(['POST']);
  });

  it('extracts nested parameters and matches the method', () => {
    expect(match('POST', '/api/payments/pay_1/refund')).toMatchObject({
      resource: '/api/payments/{id}/refund',
      pathParameters: { id: 'pay_1' },
    });
    expect(match('GET', '/api/payments/pay_1/refund')).toBeNull();
    expect(match('PUT', '/api/api-keys/key_1/revoke')?.pathParameters).toEqual({ id: 'key_1' });
  });

  it('distinguishes methods on the same resource', () => {
    expect(match('GET', '/api/customers')?.route).toBe(routes[4]);
    expect(match('post', '/api/customers')?.route).toBe(routes[5]);
    expect(match('DELETE', '/api/customers')).toBeNull();
    expect(match('PUT', '/api/customers/cus_1')?.route).toBe(routes[7]);
  });

  it('answers null for unknown paths, extra or missing segments and empty segments', () => {
    expect(match('GET', '/api/nope')).toBeNull();
    expect(match('GET', '/api/customers/cus_1/extra')).toBeNull();
    expect(match('GET', '/api')).toBeNull();
    expect(match('GET', '/')).toBeNull();
    expect(match('GET', '/api/customers//')).toBeNull();
    expect(match('GET', '/api//customers')).toBeNull();
  });

  it('ignores one trailing slash', () => {
    expect(match('GET', '/api/customers/')?.resource).toBe('/api/customers');
    expect(match('GET', '/api/customers/cus_1/')?.pathParameters).toEqual({ id: 'cus_1' });
  });

  it('decodes parameter values and matches literal segments after decoding', () => {
    expect(match('GET', '/api/customers/a%20b')?.pathParameters).toEqual({ id: 'a b' });
    expect(match('GET', '/api/%63ustomers')?.resource).toBe('/api/customers');
    expect(match('GET', '/api/customers/%E0%A4%A')?.pathParameters).toEqual({ id: '%E0%A4%A' });
  });

  it('supports greedy parameters with the lowest precedence', () => {
    expect(match('GET', '/api/files/a/b/c')?.pathParameters).toEqual({ key: 'a/b/c' });
    expect(match('GET', '/api/files/special')?.resource).toBe('/api/files/special');
    expect(match('GET', '/api/files')).toBeNull();
  });

  it('lets ANY match every method', () => {
    expect(match('DELETE', '/api/echo')?.resource).toBe('/api/echo');
  });

  it('routes every HTTP function of the catalog to itself', () => {
    const http = catalog.filter((f): f is HttpFunctionSpec => f.trigger.type === 'http');
    const asRoutes = http.map((spec) => ({ method: spec.trigger.method, path: spec.trigger.path, spec }));
    for (const spec of http) {
      const concretePath = spec.trigger.path.replace(/\{[^}]+\}/g, 'x_01');
      expect(matchRoute(asRoutes, spec.trigger.method, concretePath)?.route.spec.name).toBe(spec.name);
    }
  });
});
