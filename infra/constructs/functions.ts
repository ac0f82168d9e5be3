import { authenticated } from '../../shared/http/types.ts';
import { AssetHashType, Duration, type ILocalBundling, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  Function as LambdaFunction,
  FilterCriteria,
  FilterRule,
  LoggingFormat,
  Runtime,
  StartingPosition,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { catalog, type FunctionSpec, handlerFile, type HttpFunctionSpec, type QueueName, type VaultAccess } from '../../functions/catalog.ts';
import type { Config } from '../../shared/config.ts';
import { functionVariableOf } from '../../shared/invoke-names.ts';
import { arnVariableOf, type SecretPurpose } from '../../shared/secret-purposes.ts';
import { tableDefinition } from '../../shared/store/table-definition.ts';
import type { OtpEmail } from './email.ts';
import type { AppQueue, AppQueues } from './queues.ts';
import type { Vault } from './vault.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { bundleFunction, PROJECT_ROOT } from '../bundle.ts';

/**
 * Builds a handler with `bundleFunction` (infra/bundle.ts, the build the benchmark measures) on this machine, when CDK
 * stages the asset. Its `entry` field also tells assets apart: CDK reuses a staged asset whose options serialize alike.
 */
class LocalBuild implements ILocalBundling {
  constructor(readonly entry: string) {}
  tryBundle(outputDir: string): boolean {
    bundleFunction(this.entry, outputDir);
    return true;
  }
}

/** The function's code, hashed by the build's output. */
const functionCode = (spec: FunctionSpec) =>
  Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: { image: Runtime.NODEJS_24_X.bundlingImage, local: new LocalBuild(handlerFile(spec.name)) },
  });

/** The names of the variables `shared/config.ts` reads (queue URLs come from each queue definition's `envVar`). */
type ConfigVar = keyof Config;
const env = (name: ConfigVar): string => name;

/**
 * What a function may do with the table: `read` for public GETs (none yet); `read-and-touch` for merchant GETs, which
 * also get `dynamodb:UpdateItem` and nothing else, because the auth middleware records the API key's `last_used`
 * (`touchApiKey`, shared/store/api-keys.ts); `read-write` for everything else.
 */
export type TableAccess = 'read' | 'read-and-touch' | 'read-write';

/** What the store calls: single-item reads and queries (table and indexes), and single-item or transactional writes. */
export const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
export const TABLE_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
/** The partitions an API key's `last_used` lives in: its hash item and its item under the merchant (keys.ts). */
export const API_KEY_PARTITIONS = ['APIKEY#*', 'MER#*'];

export const tableAccessOf = (spec: FunctionSpec): TableAccess => {
  if (spec.trigger.type === 'http' && spec.trigger.method === 'GET') {
    return authenticated(spec.trigger.auth) ? 'read-and-touch' : 'read';
  }
  return spec.readsOnly ? 'read' : 'read-write';
};

/**
 * The vault tables' actions: `delete` functions delete a deleted payment method's card and CVC; `keep` ones only keep
 * a card past its expiry (a publishable key's payment method, attached); `encrypt` ones write (a card's put, a CVC's
 * delete); `decrypt` ones also read, and keep a card past its expiry (a publishable key's, charged).
 */
export const VAULT_DELETES = ['dynamodb:DeleteItem'];
export const VAULT_WRITES = ['dynamodb:PutItem', 'dynamodb:DeleteItem'];
export const VAULT_READS = ['dynamodb:GetItem', 'dynamodb:Query'];
export const VAULT_KEEPS = ['dynamodb:UpdateItem'];
/** What DynamoDB does with the vault key for whoever reads or writes the table (its at-rest encryption), and only that. */
export const VAULT_TABLE_KEY_USE = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey', 'kms:DescribeKey'];

/** Queues a function may send to: the ones it `sends` to (a change's events reach `events` through the table's stream). */
export const queuesSentToBy = (spec: FunctionSpec): readonly QueueName[] =>
  (spec.sends ?? []).filter((s): s is QueueName => s !== 'email' && s !== 'messages');

const sendersOf = (what: 'email' | 'messages'): ReadonlySet<string> =>
  new Set(catalog.filter((spec) => spec.sends?.includes(what)).map((spec) => spec.name));

/** The functions that send SMS and WhatsApp messages (AWS End User Messaging): their catalog entries say so. */
export const MESSAGE_SENDERS = sendersOf('messages');

/** The SMS and WhatsApp senders' settings, by the environment variable each becomes (shared/config.ts). */
export type MessagingSettings = Partial<
  Record<
    'SMS_ORIGINATION_IDENTITY' | 'SMS_CONFIGURATION_SET' | 'WHATSAPP_PHONE_NUMBER_ID' | 'WHATSAPP_TEMPLATE_NAME' | 'WHATSAPP_TEMPLATE_LANGUAGE',
    string
  >
>;

/** The functions that send e-mail through SES: their catalog entries say so. */
export const EMAIL_SENDERS = sendersOf('email');

/** `customers/get` → `CustomersGet`: construct ids cannot hold `/`. */
export const constructIdOf = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

const describeTrigger = (spec: FunctionSpec): string => {
  const t = spec.trigger;
  switch (t.type) {
    case 'http':
      return `${t.method} ${t.path}`;
    case 'queue':
      return `queue ${t.queue}`;
    case 'schedule':
      return `schedule ${t.expression}`;
    case 'stream':
      return 'table stream';
    case 'invoke':
      return `invoked by ${t.callers.join(', ')}`;
  }
};

const APPLICATION_LOG_LEVEL: Record<Config['LOG_LEVEL'], ApplicationLogLevel> = {
  DEBUG: ApplicationLogLevel.DEBUG,
  INFO: ApplicationLogLevel.INFO,
  WARN: ApplicationLogLevel.WARN,
  ERROR: ApplicationLogLevel.ERROR,
};

export interface AppFunctionProps {
  spec: FunctionSpec;
  serviceName: string;
  logLevel: Config['LOG_LEVEL'];
  paymentsPerMinute: number;
  logRetention: RetentionDays;
  logKey: IKey;
}

/**
 * One Lambda of the catalog with the defaults every function shares: Node 24 on arm64, ESM bundle with the SDK
 * inside (no reliance on the runtime's SDK version), minified with source maps beside it (read only to log an
 * unexpected error's stack, shared/source-mapped.ts, not at every cold start), X-Ray tracing, an encrypted log group
 * of its own and a role that may write to that group only (instead of AWSLambdaBasicExecutionRole's `logs:*` on `*`).
 * Access to anything else comes through the `use*` methods, which grant and set the variable naming the resource
 * together, so a function never has a variable without the permission or the other way round.
 */
export class AppFunction extends Construct {
  readonly spec: FunctionSpec;
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    const { spec } = props;
    this.spec = spec;
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, encryptionKey: props.logKey });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Lambda ${spec.name}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Handler', {
      description: `${spec.name}: ${describeTrigger(spec)}`,
      code: functionCode(spec),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: spec.memory,
      timeout: Duration.seconds(spec.timeout),
      role: this.role,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Lambda filters JSON application logs itself; keep its level equal to the app's so neither hides the other.
      applicationLogLevelV2: APPLICATION_LOG_LEVEL[props.logLevel],
      systemLogLevelV2: SystemLogLevel.INFO,
      environment: {
        [env('APP_ENV')]: 'aws',
        [env('LOG_LEVEL')]: props.logLevel,
        [env('PAYMENTS_PER_MINUTE')]: String(props.paymentsPerMinute),
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
    });
  }

  /**
   * `TABLE_NAME` and the table permissions of `access` (see `TableAccess`), as exact action lists rather than
   * `grantReadWriteData` (which adds Scan and batch writes no function uses). Reads reach the table and its indexes,
   * each named (`<table>/index/gsi1`, no wildcard). A merchant GET's one write, the API key's `last_used`, is limited
   * to the key's items by their partition key.
   */
  useTable(table: ITable, access: TableAccess): void {
    const indexes = tableDefinition.indexes.map((index) => `${table.tableArn}/index/${index.name}`);
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: TABLE_READS, resources: [table.tableArn, ...indexes] }));
    if (access === 'read-write') {
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions: TABLE_WRITES, resources: [table.tableArn] }));
    }
    if (access === 'read-and-touch') {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': API_KEY_PARTITIONS } },
        }),
      );
    }
    if (table.encryptionKey) table.encryptionKey.grantEncryptDecrypt(this.function);
    this.function.addEnvironment(env('TABLE_NAME'), table.tableName);
  }

  /**
   * Each given secret's `<variable>_ARN` (shared/secret-purposes.ts) and `secretsmanager:GetSecretValue` on exactly
   * those secrets, decrypting through Secrets Manager only. Written as role statements rather than `secret.grantRead`,
   * which would add one statement per function to the key policy (limited to 32 KB) and DescribeSecret, which
   * Powertools does not call; the key policy already delegates to IAM.
   */
  useSecrets(secrets: readonly (readonly [SecretPurpose, ISecret])[]): void {
    if (secrets.length === 0) return;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: secrets.map(([, secret]) => secret.secretArn) }),
    );
    const keys = new Map(secrets.flatMap(([, secret]) => (secret.encryptionKey ? [[secret.encryptionKey.node.path, secret.encryptionKey]] : [])));
    if (keys.size > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [...keys.values()].map((key) => key.keyArn),
          conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` } },
        }),
      );
    }
    for (const [purpose, secret] of secrets) this.function.addEnvironment(arnVariableOf(purpose), secret.secretArn);
  }

  /**
   * `VAULT_TABLE`, `VAULT_CVC_TABLE`, the two keys' ARNs and what `access` allows on both tables: `delete` only
   * deletes a card and its CVC (no use of the keys), `encrypt` seals and stores cards (the Encryption SDK asks KMS for
   * a data key under the card's mode's key, `kms:GenerateDataKey`), `decrypt` also reads and opens them (`kms:Decrypt`,
   * called directly). DynamoDB's own use of the live key for the tables at rest is granted apart, through DynamoDB
   * only (`kms:ViaService`), so it opens no card.
   */
  useVault({ table, cvcTable, keys }: Vault, access: VaultAccess): void {
    // the card table and the CVC table: keeping a card (removing its expiry) touches the card alone
    const actions: Record<VaultAccess, [string[], string[]]> = {
      delete: [VAULT_DELETES, VAULT_DELETES],
      keep: [VAULT_KEEPS, []],
      encrypt: [VAULT_WRITES, VAULT_WRITES],
      decrypt: [
        [...VAULT_WRITES, ...VAULT_READS, ...VAULT_KEEPS],
        [...VAULT_WRITES, ...VAULT_READS],
      ],
    };
    const [cardActions, cvcActions] = actions[access];
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: cardActions, resources: [table.tableArn] }));
    if (cvcActions.length) this.role.addToPrincipalPolicy(new PolicyStatement({ actions: cvcActions, resources: [cvcTable.tableArn] }));
    // deleting or keeping a card leaves its sealed data as it is: no use of the keys but DynamoDB's
    if (access === 'encrypt' || access === 'decrypt') {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['kms:GenerateDataKey', ...(access === 'decrypt' ? ['kms:Decrypt'] : [])],
          resources: [keys.test.keyArn, keys.live.keyArn],
        }),
      );
    }
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: VAULT_TABLE_KEY_USE,
        resources: [keys.live.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
    this.function.addEnvironment(env('VAULT_TABLE'), table.tableName);
    this.function.addEnvironment(env('VAULT_CVC_TABLE'), cvcTable.tableName);
    this.function.addEnvironment(env('VAULT_TEST_KMS_KEY_ARN'), keys.test.keyArn);
    this.function.addEnvironment(env('VAULT_LIVE_KMS_KEY_ARN'), keys.live.keyArn);
  }

  /** The queue's `envVar` (its URL) and permission to send to it. */
  sendTo({ queue, definition }: AppQueue): void {
    queue.grantSendMessages(this.function);
    this.function.addEnvironment(definition.envVar, queue.queueUrl);
  }

  /**
   * Permission to send SMS and WhatsApp messages (AWS End User Messaging), and the senders' settings. The origination
   * identities and WhatsApp numbers are account resources set up outside this stack, so the grant covers this account
   * and region's ones; the settings name which to use (CDK context, see AppSettings.messaging).
   */
  sendMessages(settings: MessagingSettings): void {
    for (const [name, value] of Object.entries(settings)) if (value) this.function.addEnvironment(name, value);
    const { region, account, partition } = Stack.of(this);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sms-voice:SendTextMessage'],
        resources: [`arn:${partition}:sms-voice:${region}:${account}:*`],
      }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['social-messaging:SendWhatsAppMessage'],
        resources: [`arn:${partition}:social-messaging:${region}:${account}:phone-number-id/*`],
      }),
    );
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sms-voice:<AWS::Region>:<AWS::AccountId>:*]',
      reason:
        'SMS origination identities (numbers, sender ids, pools) are set up after deploy; the grant is limited to this account and region and to SendTextMessage.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:social-messaging:<AWS::Region>:<AWS::AccountId>:phone-number-id/*]',
      reason: 'The WhatsApp business number is linked after deploy; the grant is limited to this account and region and to SendWhatsAppMessage.',
    });
  }

  /** `OTP_SENDER_EMAIL` and permission to send from that address. */
  sendEmailFrom(sender: OtpEmail): void {
    sender.grantSend(this.function);
    if (sender.sandbox) {
      Validations.of(this).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        reason:
          'SES sandbox only (context sesSandbox): SES also checks the verified recipient identity, so sending needs ' +
          'every identity of the account; the ses:FromAddress condition still pins the sender address.',
      });
    }
    this.function.addEnvironment(env('OTP_SENDER_EMAIL'), sender.senderAddress);
  }
}

/** What every function of the app is built with, whichever stack it lands in. */
export interface FunctionDefaults extends Omit<AppFunctionProps, 'spec'> {
  table: ITable;
  /** one per purpose: a function gets those its catalog entry names */
  secrets: Record<SecretPurpose, ISecret>;
  queues: AppQueues;
  otpEmail: OtpEmail;
  messaging: MessagingSettings;
  vault: Vault;
}

export interface AppFunctionsProps extends FunctionDefaults {
  /** Catalog entries (a stack's share of the catalog). */
  specs: readonly FunctionSpec[];
}

/**
 * One `AppFunction` per catalog entry given, with its grants and its queue or schedule trigger. HTTP triggers are
 * wired by the API routes construct (`httpFunctions`).
 */
export class AppFunctions extends Construct {
  readonly all: readonly AppFunction[];

  constructor(scope: Construct, id: string, props: AppFunctionsProps) {
    super(scope, id);
    const { specs, table, secrets, queues, otpEmail, messaging, vault, ...defaults } = props;

    const ids = new Map<string, string>();
    this.all = specs.map((spec) => {
      const constructId = constructIdOf(spec.name);
      const clash = ids.get(constructId);
      if (clash) throw new Error(`Functions "${clash}" and "${spec.name}" map to the same construct id ${constructId}`);
      ids.set(constructId, spec.name);

      const fn = new AppFunction(this, constructId, { spec, ...defaults });
      fn.useTable(table, tableAccessOf(spec));
      fn.useSecrets((spec.secrets ?? []).map((purpose) => [purpose, secrets[purpose]] as const));
      for (const queue of queuesSentToBy(spec)) fn.sendTo(queues.get(queue));
      if (spec.sends?.includes('email')) fn.sendEmailFrom(otpEmail);
      if (spec.sends?.includes('messages')) fn.sendMessages(messaging);
      if (spec.vault) fn.useVault(vault, spec.vault);
      this.addTrigger(fn, queues, table);
      return fn;
    });
    for (const callee of this.all) if (callee.spec.trigger.type === 'invoke') this.letCallersInvoke(callee, callee.spec.trigger.callers);

    this.suppressNagFindings();
  }

  httpFunctions(): (AppFunction & { spec: HttpFunctionSpec })[] {
    return this.all.filter((f): f is AppFunction & { spec: HttpFunctionSpec } => f.spec.trigger.type === 'http');
  }

  /**
   * A private function's callers (catalog `invoke`, all in this construct: infra/areas.ts places it beside them) may
   * invoke it, and only it: `lambda:InvokeFunction` on its ARN, and its name in the variable shared/invoke.ts reads.
   */
  private letCallersInvoke(callee: AppFunction, callers: readonly string[]): void {
    for (const name of callers) {
      const caller = this.all.find((fn) => fn.spec.name === name);
      if (!caller) throw new Error(`${callee.spec.name}: its caller ${name} is not beside it`);
      caller.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [callee.function.functionArn] }));
      caller.function.addEnvironment(functionVariableOf(callee.spec.name), callee.function.functionName);
    }
  }

  private addTrigger(fn: AppFunction, queues: AppQueues, table: ITable): void {
    const { trigger } = fn.spec;
    if (trigger.type === 'queue') {
      const { queue, definition, deadLetterQueue } = queues.get(trigger.queue);
      // AWS guidance: a queue's visibility timeout of at least 6× its consumer's timeout avoids double processing.
      if (definition.visibilityTimeout < 6 * fn.spec.timeout) {
        throw new Error(
          `Queue "${definition.name}" visibility timeout ${definition.visibilityTimeout}s is under 6× the ${fn.spec.timeout}s timeout of ${fn.spec.name}`,
        );
      }
      fn.function.addEventSource(new SqsEventSource(queue, { batchSize: trigger.batchSize, reportBatchItemFailures: true }));
      // A consumer that dead-letters what it gives up on itself (webhook retries after 3 days) may send there.
      if (definition.consumerDeadLetters) {
        deadLetterQueue.grantSendMessages(fn.function);
        fn.function.addEnvironment(definition.dlqEnvVar, deadLetterQueue.queueUrl);
      }
    } else if (trigger.type === 'stream') {
      fn.function.addEventSource(
        new DynamoEventSource(table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: trigger.batchSize,
          bisectBatchOnError: true,
          reportBatchItemFailures: true,
          retryAttempts: -1,
          maxRecordAge: Duration.seconds(trigger.maxRecordAgeSeconds),
          onFailure: new SqsDlq(queues.get(trigger.failuresTo).deadLetterQueue),
          // only new items of its type invoke it (the local runtime filters alike; the handler ignores anything else)
          filters: [
            FilterCriteria.filter({
              eventName: FilterRule.isEqual('INSERT'),
              dynamodb: { NewImage: { type: { S: FilterRule.isEqual(trigger.itemType) } } },
            }),
          ],
        }),
      );
    } else if (trigger.type === 'schedule') {
      new Rule(fn, 'Schedule', {
        description: `${fn.spec.name}: ${trigger.expression}`,
        schedule: Schedule.expression(trigger.expression),
        targets: [new LambdaTarget(fn.function, { retryAttempts: 2 })],
      });
    }
  }

  /** The cdk-nag findings every function has by design (see `compliance.ts`). */
  private suppressNagFindings(): void {
    for (const fn of this.all) {
      Validations.of(fn).acknowledge(
        {
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            'X-Ray trace upload (xray:PutTraceSegments, xray:PutTelemetryRecords) has no resource-level permissions; ' + 'AWS requires Resource "*".',
        },
        {
          id: 'PCI.DSS.321-IAMNoInlinePolicy',
          reason:
            'The CDK grants form one policy attached to this single function role, created and deleted with it; ' +
            'a customer-managed policy per role would add resources without narrowing any permission.',
        },
        {
          id: 'PCI.DSS.321-LambdaInsideVPC',
          reason:
            'The functions reach only regional AWS APIs (DynamoDB, SQS, Secrets Manager, SES) over TLS with IAM auth, ' +
            'and payment providers over the internet; a VPC would add NAT/endpoints without a private resource to protect.',
        },
      );
    }
  }
}
