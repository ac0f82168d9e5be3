import { App } from 'aws-cdk-lib';
import { applyCompliancePacks } from './constructs/compliance.ts';
import { PaymentOrchestrationStack, settingsFromContext } from './stack.ts';

/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`): one stack, `PaymentOrchestration` (context `stackName`), with the
 * stacks nested in it (stack.ts), deployed together by one `npx cdk deploy` (docs/operations.md "Deploying").
 * Environment-agnostic (no lookups), so `cdk synth` (`npm run synth`) needs neither credentials nor network.
 */
const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'PaymentOrchestration';

new PaymentOrchestrationStack(app, 'PaymentOrchestration', { stackName, settings: settingsFromContext(app.node) });
applyCompliancePacks(app);
