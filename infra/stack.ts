import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { catalog, type FunctionSpec } from '../functions/catalog.ts';
import type { SecretPurpose } from '../shared/secret-purposes.ts';
import { splitCatalog, stackIdOfArea } from './areas.ts';
import { AppApi } from './constructs/api.ts';
import { OtpEmail } from './constructs/email.ts';
import { Encryption } from './constructs/encryption.ts';
import type { AppFunction, FunctionDefaults } from './constructs/functions.ts';
import { Observability } from './constructs/observability.ts';
import { AppQueues } from './constructs/queues.ts';
import { AppSecrets } from './constructs/secret.ts';
import { AppTable } from './constructs/table.ts';
import { ApiAreaStack, ApiStageStack, DashboardSiteStack, VaultStack, WorkersStack } from './nested-stacks.ts';
import { type AppSettings, defaultSettings } from './settings.ts';

export { type AppSettings, defaultSettings, settingsFromContext } from './settings.ts';

export interface PaymentOrchestrationStackProps extends StackProps {
  settings?: Partial<AppSettings>;
  /** The functions to deploy; the catalog unless a test says otherwise. */
  catalog?: readonly FunctionSpec[];
}

/**
 * The whole deployment, one deploy unit: this stack holds what is stateful or shared (KMS key, table, secrets, queues,
 * SES identity, the REST API with `/api`, alarms, dashboard) and nests the rest, so no stack nears CloudFormation's 500
 * resources (`areas.ts`): `Api<Area>` per API area, `Workers` (queue and schedule functions), `ApiStage` (deployment,
 * stage and WAF, after every area) and `Vault` (the card vault's key and table). The tables, keys and secrets are
 * retained on delete.
 */
export class PaymentOrchestrationStack extends Stack {
  readonly settings: AppSettings;
  readonly table: AppTable;
  readonly queues: AppQueues;
  /** one per purpose (shared/secret-purposes.ts) */
  readonly secrets: Record<SecretPurpose, ISecret>;
  readonly api: AppApi;
  readonly vaultStack: VaultStack;
  readonly areaStacks: readonly ApiAreaStack[];
  readonly workersStack: WorkersStack;
  readonly stageStack: ApiStageStack;
  readonly dashboardStack: DashboardSiteStack;
  /** Every function, whichever nested stack holds it. */
  readonly functions: readonly AppFunction[];

  constructor(scope: Construct, id: string, props: PaymentOrchestrationStackProps = {}) {
    const { settings: overrides, catalog: specs = catalog, ...stackProps } = props;
    super(scope, id, { description: 'Payment orchestration API (serverless)', ...stackProps });
    const settings: AppSettings = { ...defaultSettings, ...overrides };
    this.settings = settings;

    const { key } = new Encryption(this, 'Encryption');
    /** Every log group: retained for `logRetention`, encrypted with the app key. */
    const logs = { logRetention: settings.logRetention, logKey: key };
    this.table = new AppTable(this, 'Data');
    const { secrets } = new AppSecrets(this, 'Secrets', { key });
    this.secrets = secrets;
    this.queues = new AppQueues(this, 'Queues');
    this.vaultStack = new VaultStack(this, 'Vault');
    const otpEmail = new OtpEmail(this, 'OtpEmail', {
      senderAddress: settings.otpSenderEmail,
      createIdentity: settings.createSesIdentity,
      sandbox: settings.sesSandbox,
    });
    const functionDefaults: FunctionDefaults = {
      table: this.table.table,
      secrets,
      queues: this.queues,
      vault: this.vaultStack.vault,
      otpEmail,
      messaging: settings.messaging,
      serviceName: settings.serviceName,
      logLevel: settings.logLevel,
      paymentsPerMinute: settings.paymentsPerMinute,
      ...logs,
    };

    this.api = new AppApi(this, 'Api');
    const { stageName } = settings;
    const { areas, workers } = splitCatalog(specs);
    this.areaStacks = [...areas].map(
      ([area, areaSpecs]) => new ApiAreaStack(this, stackIdOfArea(area), { area, specs: areaSpecs, api: this.api, stageName, functionDefaults }),
    );
    this.workersStack = new WorkersStack(this, 'Workers', { specs: workers, publicApiUrl: this.api.urlOf(stageName), functionDefaults });
    this.stageStack = new ApiStageStack(this, 'ApiStage', {
      api: this.api,
      stageName,
      throttlingRateLimit: settings.apiRateLimit,
      throttlingBurstLimit: settings.apiBurstLimit,
      wafRateLimitPer5Minutes: settings.wafRateLimitPer5Minutes,
      ...logs,
    });
    this.functions = [...this.areaStacks, this.workersStack].flatMap((stack) => stack.functions);
    this.dashboardStack = new DashboardSiteStack(this, 'Dashboard', { api: this.api.api, stageName });

    new Observability(this, 'Observability', {
      api: this.api.api,
      stage: this.stageStack.stage.stage,
      functions: this.functions,
      queues: this.queues.all,
      table: this.table.table,
      key,
      serviceName: settings.serviceName,
      alarmEmail: settings.alarmEmail,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API (append /api/...)', value: this.api.urlOf(stageName) });
    new CfnOutput(this, 'DashboardUrl', {
      description: 'The dashboard; the API answers on the same domain under /api',
      value: `https://${this.dashboardStack.site.distribution.distributionDomainName}/dashboard`,
    });
    new CfnOutput(this, 'TableName', { description: 'The single DynamoDB table', value: this.table.table.tableName });
  }
}
