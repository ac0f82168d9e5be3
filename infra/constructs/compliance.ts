import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, type NagPack, PCIDSS321Checks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * The cdk-nag packs the app must pass: AWS Solutions and PCI DSS 3.2.1. cdk-nag 3 runs them as CDK policy
 * validation plugins, so `cdk synth` fails on any finding that is not acknowledged; each acknowledgment
 * (`Validations.of(construct).acknowledge({ id, reason })`) sits next to the resource it concerns, with its reason.
 */
export const compliancePacks = (scope?: IConstruct): NagPack[] => [
  new AwsSolutionsChecks(scope, { verbose: true }),
  new PCIDSS321Checks(scope, { verbose: true }),
];

export function applyCompliancePacks(app: IConstruct): void {
  Validations.of(app).addPlugins(...compliancePacks(app));
}
