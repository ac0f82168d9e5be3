import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct, Node } from 'constructs';
import type { Config } from '../shared/config.ts';
import { AppApi } from './constructs/api.ts';
import { OtpEmail } from './constructs/email.ts';
import { Encryption } from './constructs/encryption.ts';
import { AppFunctions, type MessagingSettings } from './constructs/functions.ts';
import { Observability } from './constructs/observability.ts';
import { AppQueues } from './constructs/queues.ts';
import { AppSecret } from './constructs/secret.ts';
import { AppTable } from './constructs/table.ts';
import { ApiFirewall } from './constructs/waf.ts';

/** Deployment settings; `settingsFromContext` reads them from CDK context (`cdk deploy -c key=value` or cdk.json). */
export interface AppSettings {
  /** `POWERTOOLS_SERVICE_NAME` of every function. Context `serviceName`. */
  serviceName: string;
  /** From address of OTP e-mails (`OTP_SENDER_EMAIL`). Context `otpSenderEmail`. */
  otpSenderEmail: string;
  /** Create the SES identity of `otpSenderEmail` (false when it or its domain is already verified). Context `createSesIdentity`. */
  createSesIdentity: boolean;
  /** The account is in the SES sandbox (recipients verified too); widens the send grant to the account's identities. Context `sesSandbox`. */
  sesSandbox: boolean;
  /** E-mail subscribed to the alarm topic. Context `alarmEmail`. */
  alarmEmail?: string | undefined;
  /** `LOG_LEVEL` of every function. Context `logLevel`. */
  logLevel: Config['LOG_LEVEL'];
  /** Retention of every log group. Context `logRetentionDays` (one of CloudWatch's values). */
  logRetention: RetentionDays;
  /** Context `apiStageName`. */
  stageName: string;
  /** Stage-wide requests per second and burst. Context `apiRateLimit`, `apiBurstLimit`. */
  apiRateLimit: number;
  apiBurstLimit: number;
  /** WAF: requests per client IP per 5 minutes. Context `wafRateLimit`. */
  wafRateLimitPer5Minutes: number;
  /**
   * SMS and WhatsApp senders (AWS End User Messaging, set up in the account); unset ones stay unset. Contexts
   * `smsOriginationIdentity`, `smsConfigurationSet`, `whatsappPhoneNumberId`, `whatsappTemplateName`,
   * `whatsappTemplateLanguage`.
   */
  messaging: MessagingSettings;
}

const MESSAGING_CONTEXT: Record<string, keyof MessagingSettings> = {
  smsOriginationIdentity: 'SMS_ORIGINATION_IDENTITY',
  smsConfigurationSet: 'SMS_CONFIGURATION_SET',
  whatsappPhoneNumberId: 'WHATSAPP_PHONE_NUMBER_ID',
  whatsappTemplateName: 'WHATSAPP_TEMPLATE_NAME',
  whatsappTemplateLanguage: 'WHATSAPP_TEMPLATE_LANGUAGE',
};

export const defaultSettings: AppSettings = {
  serviceName: 'payments-api',
  otpSenderEmail: 'no-reply@example.com',
  createSesIdentity: true,
  sesSandbox: false,
  logLevel: 'INFO',
  // PCI DSS 10.7: a year of audit trail.
  logRetention: RetentionDays.ONE_YEAR,
  stageName: 'v1',
  apiRateLimit: 100,
  apiBurstLimit: 200,
  wafRateLimitPer5Minutes: 6000,
  messaging: {},
};

const LOG_LEVELS: readonly Config['LOG_LEVEL'][] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Reads `AppSettings` from context; values given with `-c` arrive as strings. */
export function settingsFromContext(node: Node): AppSettings {
  const raw = (key: string): unknown => node.tryGetContext(key);
  const text = (key: string, fallback: string): string => {
    const value = raw(key);
    return value === undefined || value === '' ? fallback : String(value);
  };
  const number = (key: string, fallback: number): number => {
    const value = raw(key);
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`Context ${key} must be a positive integer, got ${String(value)}`);
    return n;
  };
  const flag = (key: string, fallback: boolean): boolean => {
    const value = raw(key);
    if (value === undefined || value === '') return fallback;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw new Error(`Context ${key} must be true or false, got ${String(value)}`);
  };
  const logLevel = text('logLevel', defaultSettings.logLevel).toUpperCase();
  if (!LOG_LEVELS.includes(logLevel as Config['LOG_LEVEL'])) throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  const logRetention = number('logRetentionDays', defaultSettings.logRetention);
  if (!Object.values(RetentionDays).includes(logRetention))
    throw new Error(`Context logRetentionDays ${logRetention} is not a CloudWatch Logs retention`);
  const alarmEmail = raw('alarmEmail');
  return {
    serviceName: text('serviceName', defaultSettings.serviceName),
    otpSenderEmail: text('otpSenderEmail', defaultSettings.otpSenderEmail),
    createSesIdentity: flag('createSesIdentity', defaultSettings.createSesIdentity),
    sesSandbox: flag('sesSandbox', defaultSettings.sesSandbox),
    alarmEmail: alarmEmail ? String(alarmEmail) : undefined,
    logLevel: logLevel as Config['LOG_LEVEL'],
    logRetention: logRetention as RetentionDays,
    stageName: text('apiStageName', defaultSettings.stageName),
    apiRateLimit: number('apiRateLimit', defaultSettings.apiRateLimit),
    apiBurstLimit: number('apiBurstLimit', defaultSettings.apiBurstLimit),
    wafRateLimitPer5Minutes: number('wafRateLimit', defaultSettings.wafRateLimitPer5Minutes),
    messaging: Object.fromEntries(
      Object.entries(MESSAGING_CONTEXT).flatMap(([key, envVar]) => {
        const value = raw(key);
        return value === undefined || value === '' ? [] : [[envVar, String(value)]];
      }),
    ),
  };
}

export interface PaymentOrchestrationStackProps extends StackProps {
  settings?: Partial<AppSettings>;
}

/** The whole deployment: one stack, one construct per concern. */
export class PaymentOrchestrationStack extends Stack {
  readonly settings: AppSettings;
  readonly table: AppTable;
  readonly functions: AppFunctions;
  readonly api: AppApi;
  readonly queues: AppQueues;
  readonly secret: ISecret;

  constructor(scope: Construct, id: string, props: PaymentOrchestrationStackProps = {}) {
    const { settings: overrides, ...stackProps } = props;
    super(scope, id, { description: 'Payment orchestration API (serverless)', ...stackProps });
    const settings: AppSettings = { ...defaultSettings, ...overrides };
    this.settings = settings;

    const { key } = new Encryption(this, 'Encryption');
    /** Every log group: retained for `logRetention`, encrypted with the app key. */
    const logs = { logRetention: settings.logRetention, logKey: key };
    this.table = new AppTable(this, 'Data');
    const { secret } = new AppSecret(this, 'AppSecret', { key });
    this.secret = secret;
    this.queues = new AppQueues(this, 'Queues');
    const otpEmail = new OtpEmail(this, 'OtpEmail', {
      senderAddress: settings.otpSenderEmail,
      createIdentity: settings.createSesIdentity,
      sandbox: settings.sesSandbox,
    });

    this.functions = new AppFunctions(this, 'Functions', {
      table: this.table.table,
      secret,
      queues: this.queues,
      otpEmail,
      messaging: settings.messaging,
      serviceName: settings.serviceName,
      logLevel: settings.logLevel,
      ...logs,
    });

    this.api = new AppApi(this, 'Http', {
      functions: this.functions.httpFunctions(),
      stageName: settings.stageName,
      throttlingRateLimit: settings.apiRateLimit,
      throttlingBurstLimit: settings.apiBurstLimit,
      ...logs,
    });
    // Workers make links outside any request (a renewal invoice's PDF link): they learn the API's URL. Only
    // non-HTTP functions get it, so no function the API integrates depends on the API (no cycle). HTTP functions
    // build links on the domain API Gateway served the request on (requestContext.domainName + stage, see
    // baseUrlOf in shared/http/request-context.ts), never on the client's Host header.
    for (const fn of this.functions.all) {
      if (fn.spec.trigger.type !== 'http') fn.function.addEnvironment('PUBLIC_API_URL', this.api.url);
    }
    new ApiFirewall(this, 'Firewall', {
      stage: this.api.api.deploymentStage,
      rateLimitPer5Minutes: settings.wafRateLimitPer5Minutes,
      ...logs,
    });

    new Observability(this, 'Observability', {
      api: this.api.api,
      functions: this.functions.all,
      queues: this.queues.all,
      key,
      alarmEmail: settings.alarmEmail,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API (append /api/...)', value: this.api.url });
    new CfnOutput(this, 'TableName', { description: 'The single DynamoDB table', value: this.table.table.tableName });
  }
}
