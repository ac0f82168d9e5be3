import { App } from 'aws-cdk-lib';
import { applyCompliancePacks } from './constructs/compliance.ts';
import { PaymentOrchestrationStack, settingsFromContext } from './stack.ts';

/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`): one stack, `PaymentOrchestration` (context `stackName`), and
 * the stacks nested in it, deployed together by one
 * `npx cdk deploy -c otpSenderEmail=otp@yourdomain.com -c alarmEmail=ops@yourdomain.com`:
 * - `PaymentOrchestration`: key, table, secret, queues, SES identity, the REST API and `/api`, alarms, dashboard;
 * - `Api<Area>`, one per path segment after `/api` (`ApiPayments`, ...): the area's functions, routes, permissions;
 * - `Workers`: queue and schedule functions;
 * - `ApiStage`: the API's deployment, stage and WAF.
 * See `stack.ts` and `areas.ts`. Environment-agnostic (no lookups), so `cdk synth` (`npm run synth`) needs neither
 * credentials nor network.
 */
const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'PaymentOrchestration';

new PaymentOrchestrationStack(app, 'PaymentOrchestration', { stackName, settings: settingsFromContext(app.node) });
applyCompliancePacks(app);
