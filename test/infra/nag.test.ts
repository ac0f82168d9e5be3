import { type Acknowledgment, App, type PolicyViolation, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { catalog, type FunctionSpec } from '../../functions/catalog.ts';
import { compliancePacks } from '../../infra/constructs/compliance.ts';
import { PaymentOrchestrationStack, type PaymentOrchestrationStackProps } from '../../infra/stack.ts';

type AppSettingsOverrides = NonNullable<PaymentOrchestrationStackProps['settings']>;

/*
 * cdk-nag 3 packs are CDK policy-validation plugins: findings land in the validation report (and fail `cdk synth`),
 * not in annotations, so the test runs each pack directly with `validateScope`, which honours acknowledgments.
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`): the checks read the construct tree, not the code.
 */
const synth = (settings: AppSettingsOverrides = {}, specs: readonly FunctionSpec[] = catalog) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  Template.fromStack(new PaymentOrchestrationStack(app, 'PaymentOrchestration', { settings, catalog: specs }));
  return app;
};

const run = (app: App): PolicyViolation[] => compliancePacks().flatMap((pack) => pack.validateScope(app).violations);
const describeViolation = (v: PolicyViolation) =>
  `${v.ruleName}\n  ${v.violatingResources.map((r) => r.constructPath).join('\n  ')}\n  ${v.description}`;

describe('cdk-nag (AwsSolutions, PCI DSS 3.2.1)', { timeout: 360_000 }, () => {
  // a synthesis per test
  const app = synth();

  it('finds no unacknowledged errors', () => {
    const errors = run(app).filter((v) => v.severity === 'error');
    if (errors.length > 0) console.log(`cdk-nag errors:\n${errors.map(describeViolation).join('\n')}`);
    expect(errors.map((v) => v.ruleName)).toEqual([]);
  });

  it('acknowledges only findings that exist, each with a specific reason', () => {
    // Prepare: the same stack with every acknowledgment recorded instead of applied
    const acknowledged: { path: string; rule: Acknowledgment }[] = [];
    const spy = vi.spyOn(Validations.prototype, 'acknowledge').mockImplementation(function (this: Validations, ...rules) {
      const scope = (this as unknown as { scope: { node: { path: string } } }).scope;
      for (const rule of rules) acknowledged.push({ path: scope.node.path, rule });
    });
    let raw: PolicyViolation[];
    try {
      // Act
      raw = run(synth());
    } finally {
      spy.mockRestore();
    }
    // Assert
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { path, rule } of acknowledged) {
      const matches = raw.filter((v) => v.ruleName === rule.id && v.violatingResources.some((r) => r.constructPath?.startsWith(`${path}/`)));
      expect(matches.length, `${rule.id} on ${path} acknowledges nothing`).toBeGreaterThan(0);
      expect(rule.reason.length, `${rule.id} on ${path}: reason too short`).toBeGreaterThanOrEqual(60);
    }
  });

  it('passes too with functions that use the card vault (no catalog entry does yet)', () => {
    const specs = catalog.map((spec): FunctionSpec => {
      if (spec.name === 'customers/create') return { ...spec, vault: 'encrypt' };
      if (spec.name === 'payments/create') return { ...spec, vault: 'decrypt' };
      return spec;
    });
    const errors = run(synth({}, specs)).filter((v) => v.severity === 'error');
    if (errors.length > 0) console.log(`cdk-nag errors:\n${errors.map(describeViolation).join('\n')}`);
    expect(errors.map((v) => v.ruleName)).toEqual([]);
  });

  it('passes too with the SES sandbox grant (context sesSandbox)', () => {
    const errors = run(synth({ sesSandbox: true })).filter((v) => v.severity === 'error');
    if (errors.length > 0) console.log(`cdk-nag errors:\n${errors.map(describeViolation).join('\n')}`);
    expect(errors.map((v) => v.ruleName)).toEqual([]);
  });
});
