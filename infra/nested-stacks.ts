import { NestedStack } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionSpec } from '../functions/catalog.ts';
import type { AppApi } from './constructs/api.ts';
import { ApiRoutes } from './constructs/api-routes.ts';
import { ApiStage } from './constructs/api-stage.ts';
import { DashboardSite, type DashboardSiteProps } from './constructs/dashboard-site.ts';
import { type AppFunction, AppFunctions, type FunctionDefaults } from './constructs/functions.ts';
import { Vault } from './constructs/vault.ts';
import { ApiFirewall } from './constructs/waf.ts';
import { API_PREFIX, HOSTED_PREFIX } from './areas.ts';

/*
 * The nested stacks of `PaymentOrchestrationStack` (see `areas.ts` for how the catalog splits). Each reaches the
 * root stack's resources (table, secret, key, queues, the REST API) through the parameters CDK passes it.
 */

export interface ApiAreaStackProps {
  area: string;
  /** The area's HTTP functions, and the private functions they invoke. */
  specs: readonly FunctionSpec[];
  api: AppApi;
  stageName: string;
  functionDefaults: FunctionDefaults;
}

/** One area of the API (`/api/payments/...`): its functions (with the private ones they invoke), resources, methods and invoke permissions. */
export class ApiAreaStack extends NestedStack {
  readonly functions: readonly AppFunction[];

  constructor(scope: Construct, id: string, props: ApiAreaStackProps) {
    super(scope, id, { description: `Payment orchestration API: ${props.area === 'hosted' ? HOSTED_PREFIX : `${API_PREFIX}/${props.area}`}` });
    const functions = new AppFunctions(this, 'Functions', { specs: props.specs, ...props.functionDefaults });
    this.functions = functions.all;
    new ApiRoutes(this, 'Routes', { api: props.api, functions: functions.httpFunctions(), stageName: props.stageName });
  }
}

export interface WorkersStackProps {
  /** The catalog's queue and schedule functions. */
  specs: readonly FunctionSpec[];
  /** `PUBLIC_API_URL`: the stage's URL. */
  publicApiUrl: string;
  functionDefaults: FunctionDefaults;
}

/** Queue consumers and scheduled jobs. */
export class WorkersStack extends NestedStack {
  readonly functions: readonly AppFunction[];

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, { description: 'Payment orchestration workers (queues and schedules)' });
    this.functions = new AppFunctions(this, 'Functions', { specs: props.specs, ...props.functionDefaults }).all;
    // Workers make links outside any request (a renewal invoice's PDF link): they learn the API's URL, built from the
    // API's id, so they do not depend on the stage. HTTP functions build links on the domain API Gateway served the
    // request on (requestContext.domainName + stage, see baseUrlOf in shared/http/request-context.ts), never on the
    // client's Host header.
    for (const fn of this.functions) fn.function.addEnvironment('PUBLIC_API_URL', props.publicApiUrl);
  }
}

export interface ApiStageStackProps {
  api: AppApi;
  stageName: string;
  throttlingRateLimit: number;
  throttlingBurstLimit: number;
  wafRateLimitPer5Minutes: number;
  logRetention: RetentionDays;
  logKey: IKey;
}

/**
 * The API's deployment, stage and WAF. Create it after every area stack: its deployment depends on their methods,
 * so CloudFormation updates the areas first and then deploys the API.
 */
export class ApiStageStack extends NestedStack {
  readonly stage: ApiStage;

  constructor(scope: Construct, id: string, props: ApiStageStackProps) {
    super(scope, id, { description: 'Payment orchestration API: deployment, stage and WAF' });
    const logs = { logRetention: props.logRetention, logKey: props.logKey };
    this.stage = new ApiStage(this, 'Stage', {
      api: props.api.api,
      stageName: props.stageName,
      throttlingRateLimit: props.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit,
      ...logs,
    });
    new ApiFirewall(this, 'Firewall', { stage: this.stage.stage, rateLimitPer5Minutes: props.wafRateLimitPer5Minutes, ...logs });
  }
}

/**
 * The card vault (its KMS key and table) in a stack of its own, so what holds card numbers is deployed, reviewed and
 * audited apart from everything else. Both are retained when the stack is deleted.
 */
export class VaultStack extends NestedStack {
  readonly vault: Vault;

  constructor(scope: Construct, id: string) {
    super(scope, id, { description: 'Payment orchestration: the card vault (KMS key and table)' });
    this.vault = new Vault(this, 'Vault');
  }
}

/**
 * The dashboard's CloudFront distribution and bucket (constructs/dashboard-site.ts), with the Lambda that copies the
 * build into the bucket at deploy time: apart from the API's stacks, which it only names.
 */
export class DashboardSiteStack extends NestedStack {
  readonly site: DashboardSite;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id, { description: 'Payment orchestration: the dashboard (CloudFront, S3) on the API domain' });
    this.site = new DashboardSite(this, 'Site', props);
  }
}
