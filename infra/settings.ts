import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import type { Config } from '../shared/config.ts';
import type { MessagingSettings } from './constructs/functions.ts';

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
  /** `PAYMENTS_PER_MINUTE`: payment creates a merchant may make per minute. Context `paymentsPerMinute`. */
  paymentsPerMinute: number;
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
  paymentsPerMinute: 100,
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
    paymentsPerMinute: number('paymentsPerMinute', defaultSettings.paymentsPerMinute),
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
