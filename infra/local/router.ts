/**
 * The local router: picks the catalog route for a request the way API Gateway REST does. The resource is chosen by
 * path alone, most specific first (at the first segment where templates differ, a literal beats `{param}`, which beats
 * `{param+}`: `GET /api/payments/list` is never `/api/payments/{id}`); the method is then looked up on that resource
 * only. Pure: the gateway and the tests pass the routes in.
 */

export interface RouteLike {
  method: string;
  /** API Gateway resource template, e.g. `/api/customers/{id}` */
  path: string;
}

export interface RouteMatch<R extends RouteLike> {
  route: R;
  /** The resource template (`event.resource`). */
  resource: string;
  /** Decoded path parameters, `null` when the template has none (as API Gateway sends it). */
  pathParameters: Record<string, string> | null;
}

type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string } | { kind: 'greedy'; name: string };

const RANK = { literal: 2, param: 1, greedy: 0 } as const;

const templateCache = new Map<string, Segment[]>();

function parseTemplate(template: string): Segment[] {
  const cached = templateCache.get(template);
  if (cached) return cached;
  const parts = splitPath(template);
  const segments = parts.map((part, i): Segment => {
    const param = /^\{([A-Za-z0-9_.-]+)(\+)?\}$/.exec(part);
    if (!param) return { kind: 'literal', value: part };
    if (param[2]) {
      if (i !== parts.length - 1) throw new Error(`Greedy parameter must be the last segment: ${template}`);
      return { kind: 'greedy', name: param[1]! };
    }
    return { kind: 'param', name: param[1]! };
  });
  templateCache.set(template, segments);
  return segments;
}

/** `/a/b/` → `['a', 'b']`; `/` → `[]`. One trailing slash is ignored. */
function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const parts = trimmed.split('/');
  if (parts[0] === '') parts.shift();
  if (parts.length === 1 && parts[0] === '') return [];
  return parts;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Path parameters when `template` matches `segments`, else undefined. */
function matchTemplate(template: Segment[], segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    if (t.kind === 'greedy') {
      const rest = segments.slice(i);
      if (rest.length === 0 || rest.some((s) => s === '')) return undefined;
      params[t.name] = rest.map(decode).join('/');
      return params;
    }
    const s = segments[i];
    if (s === undefined || s === '') return undefined;
    if (t.kind === 'literal') {
      if (decode(s) !== t.value) return undefined;
    } else {
      params[t.name] = decode(s);
    }
  }
  return template.length === segments.length ? params : undefined;
}

/** Negative when `a` is more specific than `b`. */
function compareSpecificity(a: Segment[], b: Segment[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ra = a[i] ? RANK[a[i]!.kind] : -1;
    const rb = b[i] ? RANK[b[i]!.kind] : -1;
    if (ra !== rb) return rb - ra;
  }
  return 0;
}

/**
 * The route for `method` + `path` (path without query string), or `null` when no resource matches the path or the
 * matched resource has no such method. `ANY` on a route matches every method.
 */
export function matchRoute<R extends RouteLike>(routes: readonly R[], method: string, path: string): RouteMatch<R> | null {
  const segments = splitPath(path);
  let best: { template: Segment[]; resource: string; params: Record<string, string> } | undefined;
  for (const route of routes) {
    const template = parseTemplate(route.path);
    if (best && best.resource === route.path) continue;
    const params = matchTemplate(template, segments);
    if (!params) continue;
    if (!best || compareSpecificity(template, best.template) < 0) best = { template, resource: route.path, params };
  }
  if (!best) return null;
  const upper = method.toUpperCase();
  const resource = best.resource;
  const route =
    routes.find((r) => r.path === resource && r.method.toUpperCase() === upper) ??
    routes.find((r) => r.path === resource && r.method.toUpperCase() === 'ANY');
  if (!route) return null;
  return { route, resource, pathParameters: Object.keys(best.params).length > 0 ? best.params : null };
}

/** The methods a path's resource answers (for diagnostics: "exists with another method"). */
export function methodsForPath<R extends RouteLike>(routes: readonly R[], path: string): string[] {
  const segments = splitPath(path);
  let best: { template: Segment[]; resource: string } | undefined;
  for (const route of routes) {
    const template = parseTemplate(route.path);
    if (!matchTemplate(template, segments)) continue;
    if (!best || compareSpecificity(template, best.template) < 0) best = { template, resource: route.path };
  }
  return best ? routes.filter((r) => r.path === best.resource).map((r) => r.method.toUpperCase()) : [];
}
