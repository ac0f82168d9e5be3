import { App, type CfnResource, NestedStack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { catalog, type FunctionSpec } from '../../functions/catalog.ts';
import { areaOf, isHttp, stackIdOfArea } from '../../infra/areas.ts';
import { PaymentOrchestrationStack } from '../../infra/stack.ts';
import { defaultDeployment, mergedTemplate, stacksOf } from './templates.ts';

/* How the deployment splits into a root stack and nested stacks (infra/areas.ts, infra/stack.ts). */

const CLOUDFORMATION_LIMIT = 500;
const BUDGET = 0.7 * CLOUDFORMATION_LIMIT;

const build = (specs: readonly FunctionSpec[] = catalog) =>
  new PaymentOrchestrationStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'PaymentOrchestration', { catalog: specs });
const root = await defaultDeployment();
const counts = stacksOf(root).map(({ stack, template }) => [stack.node.path, Object.keys(template.Resources).length] as const);

/** The logical id of the API's deployment: a new one makes CloudFormation deploy the API again. */
const deploymentIdOf = (stack: PaymentOrchestrationStack) => {
  const [id, ...others] = Object.entries(mergedTemplate(stack).toJSON().Resources as Record<string, { Type: string }>)
    .filter(([, r]) => r.Type === 'AWS::ApiGateway::Deployment')
    .map(([logicalId]) => logicalId);
  expect(others).toEqual([]);
  return id;
};

/** The catalog with one function's path changed. */
const withPath = (name: string, path: string): FunctionSpec[] =>
  catalog.map((spec) => (spec.name === name && isHttp(spec) ? { ...spec, trigger: { ...spec.trigger, path } } : spec));

describe('stacks', () => {
  it.each(counts)(`%s holds %i resources (at most ${BUDGET - 1}: under 70 percent of CloudFormation's ${CLOUDFORMATION_LIMIT})`, (_, count) => {
    expect(count).toBeLessThan(BUDGET);
  });

  it("puts each HTTP function in the stack of its area (the path after /api), a private one in its callers', the others in Workers", () => {
    expect(root.functions.map((fn) => fn.spec.name).sort()).toEqual(catalog.map((spec) => spec.name).sort());
    const areaOfName = (name: string) => stackIdOfArea(areaOf(catalog.filter(isHttp).find((spec) => spec.name === name)!));
    for (const fn of root.functions) {
      const { trigger } = fn.spec;
      const expected = isHttp(fn.spec) ? stackIdOfArea(areaOf(fn.spec)) : trigger.type === 'invoke' ? areaOfName(trigger.callers[0]!) : 'Workers';
      expect(NestedStack.of(fn).node.id, fn.spec.name).toBe(expected);
    }
    expect(stackIdOfArea('test_helpers')).toBe('ApiTestHelpers');
  });

  it('lands a route of a new area in a new stack, with no change to infra/', () => {
    const moved = build(withPath('customers/get', '/api/reports/{id}'));
    const fn = moved.functions.find((f) => f.spec.name === 'customers/get')!;
    expect(NestedStack.of(fn).node.path).toBe('PaymentOrchestration/ApiReports');
    expect(() => build(withPath('customers/get', '/customers/{id}'))).toThrow(/starts with \/api\/<area>/);
  });

  it('deploys the API anew when a route changes, and only then', () => {
    expect(deploymentIdOf(build())).toBe(deploymentIdOf(root));
    expect(deploymentIdOf(build(withPath('customers/get', '/api/customers/{id}/details')))).not.toBe(deploymentIdOf(root));
    expect(deploymentIdOf(build(catalog.filter((spec) => spec.name !== 'refunds/get')))).not.toBe(deploymentIdOf(root));
  }, 360_000); // three more syntheses

  it('deploys the API after every area stack', () => {
    const idOf = (stack: NestedStack) => root.getLogicalId(stack.nestedStackResource as CfnResource);
    const stageStack = mergedTemplate(root).toJSON().Resources[idOf(root.stageStack)] as { DependsOn?: string[] };
    expect(stageStack.DependsOn).toEqual(expect.arrayContaining(root.areaStacks.map(idOf)));
  });

  it('keeps the logical ids the single stack gave the retained resources, in the root stack (an update keeps the data)', () => {
    const rootResources = stacksOf(root).find(({ stack }) => stack === root)!.template.Resources;
    expect(rootResources).toMatchObject({
      DataTableFDBAD0F2: { Type: 'AWS::DynamoDB::Table', DeletionPolicy: 'Retain' },
      EncryptionKey3A692D6E: { Type: 'AWS::KMS::Key', DeletionPolicy: 'Retain' },
      // one secret per purpose (infra/constructs/secret.ts)
      SecretsOtp3881219D: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
      SecretsLinks1BE2474E: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
      SecretsFingerprints5554DB5B: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
      SecretsCredentialsE782A45C: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
      SecretsWebhooksA46236DF: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
      SecretsIdempotency8626E4FC: { Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' },
    });
  });

  it("gives workers the API's URL, built from the API's id (no dependency on the stage), and HTTP functions none", () => {
    const resources = mergedTemplate(root).toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
    const apiId = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ApiGateway::RestApi')![0];
    for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
      const name = String(fn.Properties.Description).split(':')[0]!;
      const url = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.PUBLIC_API_URL;
      if (name.startsWith('workers/')) {
        expect(JSON.stringify(url), name).toContain(`{"Ref":"${apiId}"}`);
        expect(JSON.stringify(url), name).toContain('/v1/');
      } else {
        expect(url, name).toBeUndefined();
      }
    }
  });
});
