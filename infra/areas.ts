import type { FunctionSpec, HttpFunctionSpec } from '../functions/catalog.ts';
import { constructIdOf } from './constructs/functions.ts';

/**
 * How the catalog splits into nested stacks, each well under CloudFormation's 500 resources (an endpoint takes 8).
 * An HTTP function belongs to the area named right after `/api` (`/api/payments/{id}/capture` → `payments`), whose
 * nested stack `Api<Area>` holds its functions, resources, methods and permissions: a new catalog entry needs no
 * change to `infra/`. A private function (trigger `invoke`) goes with its callers, into their area's stack (they are
 * granted its invocation by its ARN). Queue, schedule and stream functions are the `Workers` stack.
 */
export const API_PREFIX = '/api';
/** The pages and scripts for shoppers' browsers (hosted card fields): one area, `hosted`, beside the API's. */
export const HOSTED_PREFIX = '/hosted';
/** The top-level resources every route lies below. */
export const PATH_PREFIXES = [API_PREFIX, HOSTED_PREFIX] as const;

export const areaOf = (spec: HttpFunctionSpec): string => {
  const [prefix, area] = spec.trigger.path.split('/').filter(Boolean);
  if (`/${prefix}` === HOSTED_PREFIX && area) return 'hosted';
  if (`/${prefix}` !== API_PREFIX || !area || !/^[A-Za-z0-9._-]+$/.test(area)) {
    throw new Error(`${spec.name}: an HTTP path starts with ${API_PREFIX}/<area> or ${HOSTED_PREFIX}/, got ${spec.trigger.path}`);
  }
  return area;
};

/** `test_helpers` → `ApiTestHelpers`. */
export const stackIdOfArea = (area: string): string => `Api${constructIdOf(area)}`;

export const isHttp = (spec: FunctionSpec): spec is HttpFunctionSpec => spec.trigger.type === 'http';

export const isInvoked = (spec: FunctionSpec): spec is FunctionSpec & { trigger: { type: 'invoke' } } => spec.trigger.type === 'invoke';

/** The area of a private function: its callers', which must all be HTTP functions of one area. */
function areaOfInvoked(spec: FunctionSpec & { trigger: { type: 'invoke' } }, specs: readonly FunctionSpec[]): string {
  const callers = spec.trigger.callers.map((name) => specs.find((s) => s.name === name));
  const areas = new Set(callers.map((caller) => (caller && isHttp(caller) ? areaOf(caller) : undefined)));
  const [area] = areas;
  if (callers.length === 0 || areas.size !== 1 || !area) {
    throw new Error(`${spec.name}: its callers (${spec.trigger.callers.join(', ')}) must be HTTP functions of one area`);
  }
  return area;
}

/** The HTTP functions by area (in catalog order) with the private functions they invoke, and the workers. */
export function splitCatalog(specs: readonly FunctionSpec[]): { areas: Map<string, FunctionSpec[]>; workers: FunctionSpec[] } {
  const areas = new Map<string, FunctionSpec[]>();
  const stackIds = new Map<string, string>();
  for (const spec of specs.filter(isHttp)) {
    const area = areaOf(spec);
    const clash = stackIds.get(stackIdOfArea(area));
    if (clash && clash !== area) throw new Error(`Areas "${clash}" and "${area}" map to the same stack ${stackIdOfArea(area)}`);
    stackIds.set(stackIdOfArea(area), area);
    areas.set(area, [...(areas.get(area) ?? []), spec]);
  }
  for (const spec of specs.filter(isInvoked)) {
    const area = areaOfInvoked(spec, specs);
    areas.set(area, [...areas.get(area)!, spec]);
  }
  return { areas, workers: specs.filter((spec) => !isHttp(spec) && !isInvoked(spec)) };
}
