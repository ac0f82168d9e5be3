import { existsSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { App, type CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { PaymentOrchestrationStack } from '../../infra/stack.ts';

/*
 * The deployment is a root stack and its nested stacks (infra/stack.ts). Tests read it as one template: every
 * stack's resources in one map, with each nested stack's parameters replaced by the values the root passes them
 * (and the root's reads of nested outputs by the outputs' values), so that `{ Ref: <table> }` means the table
 * wherever it is used.
 */

export interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
interface TemplateJson {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** Templates synthesized once per run, by stack path, for the construct trees `defaultDeployment` built. */
const synthesized = new WeakMap<Stack, Record<string, TemplateJson>>();

/** The root and every stack nested in it, with its template. */
export const stacksOf = (root: Stack): { stack: Stack; template: TemplateJson }[] =>
  root.node
    .findAll()
    .filter((c): c is Stack => Stack.isStack(c))
    .map((stack) => ({ stack, template: synthesized.get(root)?.[stack.node.path] ?? (Template.fromStack(stack).toJSON() as TemplateJson) }));

/**
 * The deployment as defaults make it (the catalog, default settings, bundling skipped), which most infra tests read.
 * Each file builds its own construct tree (about a second), but the templates, the slow part, are synthesized once per
 * run: the first file to ask writes them to the run's cache directory, the others wait for that file and read it.
 */
export async function defaultDeployment(): Promise<PaymentOrchestrationStack> {
  const root = new PaymentOrchestrationStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'PaymentOrchestration');
  const file = join(inject('suiteCache'), 'default-deployment.json');
  const templates = await onceInRun(file, () => Object.fromEntries(stacksOf(root).map(({ stack, template }) => [stack.node.path, template])));
  synthesized.set(root, templates);
  return root;
}

/** What `make` returns, made by the first test file of the run to ask and kept as JSON in `file` for the others. */
async function onceInRun<T>(file: string, make: () => T): Promise<T> {
  try {
    writeFileSync(`${file}.lock`, String(process.pid), { flag: 'wx' });
  } catch {
    return readWhenWritten<T>(file);
  }
  let made: { value?: T; error?: string };
  try {
    made = { value: make() };
  } catch (error) {
    made = { error: String((error as Error).stack ?? error) };
  }
  writeFileSync(`${file}.part`, JSON.stringify(made));
  renameSync(`${file}.part`, file); // whole or absent for a reader
  if (made.error !== undefined) throw new Error(made.error);
  return made.value as T;
}

/** The value another file writes to `file` (its rename is the event); 10 minutes catch a maker that hangs. */
function readWhenWritten<T>(file: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const watcher = watch(dirname(file));
    const timer = setTimeout(() => done(new Error(`${file} was not written within 10 minutes`)), 600_000);
    const read = () => {
      if (!existsSync(file)) return;
      const made = JSON.parse(readFileSync(file, 'utf8')) as { value?: T; error?: string };
      done(made.error === undefined ? undefined : new Error(`made by another test file, which failed: ${made.error}`), made.value);
    };
    function done(error?: Error, value?: T) {
      clearTimeout(timer);
      watcher.close();
      if (error) reject(error);
      else resolve(value as T);
    }
    watcher.on('change', (_, name) => void (String(name) === basename(file) && read()));
    read();
  });
}

/** Replaces, anywhere in `value`, each object `from` matches by what it returns. */
const replace = (value: unknown, from: (o: Record<string, unknown>) => unknown): unknown => {
  if (Array.isArray(value)) return value.map((v) => replace(v, from));
  if (value === null || typeof value !== 'object') return value;
  const replaced = from(value as Record<string, unknown>);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v, from)]));
};

/** The whole deployment as one template (see above); a logical id used in two stacks is an error. */
export function mergedTemplate(root: Stack): Template {
  const stacks = stacksOf(root);
  const rootTemplate = stacks.find((s) => s.stack === root)!.template;
  const nestedById = new Map(
    stacks
      .filter((s) => NestedStack.isNestedStack(s.stack))
      .map((s) => [root.getLogicalId((s.stack as NestedStack).nestedStackResource as CfnResource), s] as const),
  );
  const resources: Record<string, Resource> = {};
  const add = (id: string, resource: Resource) => {
    if (resource.Type === 'AWS::CDK::Metadata') return;
    if (resources[id]) throw new Error(`Logical id ${id} is used in two stacks`);
    resources[id] = resource;
  };
  const readOutput = (o: Record<string, unknown>) => {
    const getAtt = o['Fn::GetAtt'] as [string, string] | undefined;
    const nested = getAtt && nestedById.get(getAtt[0]);
    return nested && getAtt[1].startsWith('Outputs.') ? nested.template.Outputs?.[getAtt[1].slice('Outputs.'.length)]?.Value : undefined;
  };
  for (const [id, resource] of Object.entries(rootTemplate.Resources)) add(id, replace(resource, readOutput) as Resource);
  for (const [id, { template }] of nestedById) {
    // what the root passes, with another nested stack's outputs read (the vault's key and table reach functions so)
    const given = replace(rootTemplate.Resources[id]!.Properties?.Parameters ?? {}, readOutput) as Record<string, unknown>;
    const readParameter = (o: Record<string, unknown>) => (typeof o.Ref === 'string' && o.Ref in given ? given[o.Ref] : undefined);
    for (const [nestedId, resource] of Object.entries(template.Resources)) add(nestedId, replace(resource, readParameter) as Resource);
  }
  return Template.fromJSON({ Resources: resources, Outputs: rootTemplate.Outputs ?? {} });
}

/** An IAM policy statement as the template holds it. */
export interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Whether `value` names the logical id `id` anywhere (a Ref, a GetAtt). */
export const refersTo = (value: unknown, id: string): boolean => JSON.stringify(value ?? null).includes(`"${id}"`);

/** Each function of the template (named by its catalog entry) with its role's policy statements and its environment. */
export function functionsOf(resources: Record<string, Resource>) {
  const policies = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy');
  return (
    Object.values(resources)
      // the catalog's functions, each described `<name>: <trigger>` (not the dashboard's deploy-time copier, CDK's own)
      .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Description !== undefined)
      .map((fn) => {
        const roleId = JSON.stringify(fn.Properties?.Role).match(/"Fn::GetAtt":\["([A-Za-z0-9]+)"/)![1]!;
        const statements = policies
          .filter((p) => refersTo(p.Properties?.Roles, roleId))
          .flatMap((p) => (p.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
        const env = (fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
        return { name: String(fn.Properties?.Description).split(':')[0]!, statements, env };
      })
  );
}
