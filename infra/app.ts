import { App } from 'aws-cdk-lib';
import { applyCompliancePacks } from './constructs/compliance.ts';
import { PaymentOrchestrationStack, settingsFromContext } from './stack.ts';

/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). One stack; settings come from context, e.g.
 * `npx cdk deploy -c otpSenderEmail=otp@yourdomain.com -c alarmEmail=ops@yourdomain.com`.
 * Environment-agnostic (no lookups), so `cdk synth` needs neither credentials nor network.
 */
const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'PaymentOrchestration';

new PaymentOrchestrationStack(app, 'PaymentOrchestration', { stackName, settings: settingsFromContext(app.node) });
applyCompliancePacks(app);
