import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnResource } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { catalog, type FunctionSpec, httpFunctions } from '../../functions/catalog.ts';
import { EMAIL_SENDERS, MESSAGE_SENDERS, queuesSentToBy, tableAccessOf } from '../../infra/constructs/functions.ts';
import { defaultSettings, PaymentOrchestrationStack, settingsFromContext } from '../../infra/stack.ts';
import { queueDefinitions } from '../../shared/queues.ts';
import { tableDefinition } from '../../shared/store/table-definition.ts';
import { defaultDeployment, mergedTemplate, type Resource } from './templates.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';

/*
 * CDK assertions on the synthesized templates of the root stack and its nested stacks, read as one (templates.ts). `aws:cdk:bundling-stacks: []` makes every NodejsFunction skip esbuild
 * (AssetStaging sees `stack.bundlingRequired === false` and stages the project directory as is, hashing only the
 * construct path), so synthesis takes seconds; `npm run synth` covers the real bundling.
 */
const stack = await defaultDeployment();
const template = mergedTemplate(stack);
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const props = (logicalId: string) => resources[logicalId]?.Properties ?? {};
const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) => Stack.of(stack).getLogicalId(construct.node.defaultChild as CfnResource);
/** Logical ids of the resources a value refers to with Ref or Fn::GetAtt, anywhere inside it. */
const referencedIds = (value: unknown): string[] =>
  [...JSON.stringify(value).matchAll(/"(?:Ref|Fn::GetAtt)":(?:"|\[")([A-Za-z0-9]+)"/g)].map((m) => m[1]!);

/** Lambda logical id → catalog name, through the description `<name>: <trigger>`. */
const functionIdByName = new Map(
  ofType('AWS::Lambda::Function')
    .filter(([, r]) => r.Properties?.Description !== undefined) // not the dashboard's deploy-time copier, which has none
    .map(([id, r]) => [String(r.Properties?.Description).split(':')[0]!, id]),
);
const functionId = (name: string) => {
  const id = functionIdByName.get(name);
  if (!id) throw new Error(`No Lambda for ${name}`);
  return id;
};
/** The statements of the inline policies of a function's role. */
const statementsOf = (name: string) => {
  const roleId = referencedIds(props(functionId(name)).Role)[0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => referencedIds(p.Properties?.Roles).includes(roleId!))
    .flatMap(([, p]) => (p.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
};
interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}
const actionsOf = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

const tableId = logicalIdOf(stack.table.table);

describe('functions', () => {
  it("has exactly one Lambda per catalog entry and no other but the dashboard's deploy-time copier", () => {
    // CDK's BucketDeployment copies the dashboard's build into its bucket during a deploy (dashboard-site.ts)
    template.resourceCountIs('AWS::Lambda::Function', catalog.length + 1);
    expect([...functionIdByName.keys()].sort()).toEqual(catalog.map((f) => f.name).sort());
  });

  it.each(catalog.map((f) => [f.name, f] as const))(
    '%s runs on Node 24, arm64, traced, with the catalog size and the shared env (metrics namespace too)',
    (name, spec) => {
      expect(props(functionId(name))).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: spec.memory,
        Timeout: spec.timeout,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON' },
        Environment: {
          Variables: {
            APP_ENV: 'aws',
            LOG_LEVEL: defaultSettings.logLevel,
            POWERTOOLS_SERVICE_NAME: defaultSettings.serviceName,
            POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
            TABLE_NAME: { Ref: tableId },
          },
        },
      });
      // Events reach the queue through the table's stream: no API function can send to it, only the stream's consumer
      // and the delivery worker (its retries), and the redelivery a merchant asks for (retries of an event already
      // committed: it changes nothing in the table, and a failed send fails the request).
      const variables = (props(functionId(name)).Environment as { Variables: Record<string, unknown> }).Variables;
      expect('EVENTS_QUEUE_URL' in variables, name).toBe(queuesSentToBy(spec).includes('events'));
      if (spec.trigger.type === 'http' && name !== 'events/redeliver') expect('EVENTS_QUEUE_URL' in variables, name).toBe(false);
    },
  );

  it('gives each function its own encrypted log group and no AWS-managed policy', () => {
    for (const spec of catalog) {
      const logGroupId = referencedIds((props(functionId(spec.name)).LoggingConfig as { LogGroup: unknown }).LogGroup)[0]!;
      expect(props(logGroupId)).toMatchObject({ RetentionInDays: defaultSettings.logRetention, KmsKeyId: expect.anything() });
      const roleId = referencedIds(props(functionId(spec.name)).Role)[0]!;
      expect(props(roleId).ManagedPolicyArns).toBeUndefined();
      const logStatements = statementsOf(spec.name).filter((s) => actionsOf([s]).some((a) => a.startsWith('logs:')));
      expect(logStatements.map((s) => referencedIds(s.Resource))).toEqual([[logGroupId]]);
    }
  });

  it('uses Resource "*" only for X-Ray and listing streams, which have no resource-level permissions', () => {
    for (const spec of catalog) {
      const wildcard = statementsOf(spec.name).filter((s) => JSON.stringify(s.Resource) === '"*"');
      expect(
        actionsOf(wildcard).every((a) => a.startsWith('xray:') || (a === 'dynamodb:ListStreams' && spec.trigger.type === 'stream')),
        spec.name,
      ).toBe(true);
    }
  });

  it('grants table actions by need: no Scan or batch writes; merchant GETs may only touch API key items', () => {
    const never = ['dynamodb:Scan', 'dynamodb:BatchWriteItem', 'dynamodb:BatchGetItem', 'dynamodb:*'];
    const writes = ['dynamodb:PutItem', 'dynamodb:DeleteItem'];
    for (const spec of catalog) {
      const statements = statementsOf(spec.name);
      const actions = actionsOf(statements);
      const access = tableAccessOf(spec);
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      for (const action of never) expect(actions, `${spec.name} ${action}`).not.toContain(action);
      if (access === 'read-write') expect(actions).toEqual(expect.arrayContaining([...writes, 'dynamodb:UpdateItem']));
      else for (const write of writes) expect(actions, `${spec.name} ${write}`).not.toContain(write);
      if (access === 'read') expect(actions).not.toContain('dynamodb:UpdateItem');
      if (access === 'read-and-touch') {
        const update = statements.filter((s) => actionsOf([s]).includes('dynamodb:UpdateItem'));
        expect(update).toEqual([
          {
            Action: 'dynamodb:UpdateItem',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'MER#*'] } },
          },
        ]);
      }
    }
    const getters = catalog.filter((f) => f.trigger.type === 'http' && f.trigger.method === 'GET');
    expect(getters.length).toBeGreaterThan(0);
    expect(getters.every((f) => tableAccessOf(f) !== 'read-write')).toBe(true);
  });

  it('lets only the OTP sender send e-mail, from the configured address', () => {
    for (const spec of catalog) {
      const ses = statementsOf(spec.name).filter((s) => actionsOf([s]).some((a) => a.startsWith('ses:')));
      if (EMAIL_SENDERS.has(spec.name)) {
        expect(ses).toMatchObject([{ Action: 'ses:SendEmail', Condition: { StringEquals: { 'ses:FromAddress': defaultSettings.otpSenderEmail } } }]);
        expect(props(functionId(spec.name)).Environment).toMatchObject({
          Variables: { OTP_SENDER_EMAIL: defaultSettings.otpSenderEmail },
        });
      } else {
        expect(ses, spec.name).toEqual([]);
      }
    }
    expect(EMAIL_SENDERS.has('auth/request-otp')).toBe(true);
  });

  it('lets a function read its secrets (secrets.test.ts) through Secrets Manager only', () => {
    for (const spec of catalog.filter((s) => s.secrets?.length)) {
      const statements = statementsOf(spec.name);
      expect(actionsOf(statements)).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 'kms:Decrypt']));
      const decrypt = statements.find((s) => actionsOf([s]).includes('kms:Decrypt'));
      expect(decrypt?.Condition).toMatchObject({ StringEquals: { 'kms:ViaService': expect.anything() } });
    }
  });
});

describe('REST API', () => {
  const rootOf = (value: unknown) => JSON.stringify(value).includes('RootResourceId');
  const paths = new Map<string, string>();
  const pathOf = (resourceId: string): string => {
    const known = paths.get(resourceId);
    if (known) return known;
    const { ParentId, PathPart } = props(resourceId) as { ParentId: unknown; PathPart: string };
    const path = `${rootOf(ParentId) ? '' : pathOf(referencedIds(ParentId)[0]!)}/${PathPart}`;
    paths.set(resourceId, path);
    return path;
  };
  const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => {
    const p = m.Properties as { HttpMethod: string; ResourceId: unknown; Integration: { Type: string; Uri: unknown } } & Record<string, unknown>;
    const fnId = referencedIds(p.Integration.Uri).find((id) => resources[id]?.Type === 'AWS::Lambda::Function');
    const name = [...functionIdByName].find(([, id]) => id === fnId)?.[0];
    return { route: `${p.HttpMethod} ${rootOf(p.ResourceId) ? '/' : pathOf(referencedIds(p.ResourceId)[0]!)}`, name, props: p };
  });

  it('has one method per HTTP catalog route, on its path, integrated with its function', () => {
    const expected = httpFunctions().map((f) => `${f.trigger.method} ${f.trigger.path} -> ${f.name}`);
    expect(methods.map((m) => `${m.route} -> ${m.name}`).sort()).toEqual(expected.sort());
    template.resourceCountIs('AWS::ApiGateway::Method', httpFunctions().length);
    const segments = new Set(
      httpFunctions().flatMap((f) =>
        f.trigger.path
          .split('/')
          .filter(Boolean)
          .map((_, i, all) => all.slice(0, i + 1).join('/')),
      ),
    );
    template.resourceCountIs('AWS::ApiGateway::Resource', segments.size);
  });

  it('uses Lambda proxy integrations, a request validator and required path parameters', () => {
    for (const m of methods) {
      expect(m.props.Integration.Type).toBe('AWS_PROXY');
      expect(m.props.RequestValidatorId).toBeDefined();
      const params = [...m.route.matchAll(/\{(\w+)\}/g)].map((p) => [`method.request.path.${p[1]}`, true]);
      expect(m.props.RequestParameters ?? {}).toEqual(Object.fromEntries(params));
    }
    // One API Gateway invoke permission per method: no extra test-invoke permissions.
    const apiPermissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties?.Principal === 'apigateway.amazonaws.com');
    expect(apiPermissions).toHaveLength(httpFunctions().length);
  });

  it('throttles, traces and access-logs (JSON) the stage, and never logs bodies', () => {
    const [[, stage]] = ofType('AWS::ApiGateway::Stage') as [[string, Resource]];
    expect(stage.Properties).toMatchObject({
      StageName: defaultSettings.stageName,
      TracingEnabled: true,
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: defaultSettings.apiRateLimit,
          ThrottlingBurstLimit: defaultSettings.apiBurstLimit,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ],
    });
    const accessLog = stage.Properties!.AccessLogSetting as { DestinationArn: unknown; Format: string };
    expect(resources[referencedIds(accessLog.DestinationArn)[0]!]?.Type).toBe('AWS::Logs::LogGroup');
    expect(JSON.parse(accessLog.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
  });

  it('names the API after the stack (alarms: alarms.test.ts)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'PaymentOrchestration' });
  });

  it('answers unknown routes 404 in the app error shape', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
      ResponseTemplates: {
        'application/json': Match.stringLikeRegexp('"code":"route_not_found","message":"Resource not found","request_id":"\\$context.requestId"'),
      },
    });
  });

  it('puts a WAF web ACL with managed rules and a rate-based rule on the stage', () => {
    const [[aclId, acl]] = ofType('AWS::WAFv2::WebACL') as [[string, Resource]];
    const rules = acl.Properties!.Rules as { Statement: Record<string, { Name?: string }> }[];
    expect(rules.some((r) => r.Statement.RateBasedStatement)).toBe(true);
    expect(rules.map((r) => r.Statement.ManagedRuleGroupStatement?.Name)).toContain('AWSManagedRulesCommonRuleSet');
    // Bodies up to the API's 64 KB and clients without a User-Agent are counted, not blocked
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: {
            ManagedRuleGroupStatement: Match.objectLike({
              Name: 'AWSManagedRulesCommonRuleSet',
              RuleActionOverrides: [
                { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
                { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
              ],
            }),
          },
        }),
      ]),
    });
    const [[, association]] = ofType('AWS::WAFv2::WebACLAssociation') as [[string, Resource]];
    expect(referencedIds(association.Properties!.WebACLArn)).toEqual([aclId]);
    expect(referencedIds(association.Properties!.ResourceArn)).toContain(ofType('AWS::ApiGateway::Stage')[0]![0]);
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
    });
  });
});

describe('table', () => {
  it('is built from the table definition: keys, GSIs, TTL, PITR, on demand, protected and retained', () => {
    // the single table, and the card vault's two: cards and CVCs (test/infra/vault.test.ts)
    template.resourceCountIs('AWS::DynamoDB::Table', 3);
    const keySchema = (hash: string, range: string) => [
      { AttributeName: hash, KeyType: 'HASH' },
      { AttributeName: range, KeyType: 'RANGE' },
    ];
    expect(resources[tableId]).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: keySchema('pk', 'sk'),
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        DeletionProtectionEnabled: true,
        GlobalSecondaryIndexes: [
          { IndexName: 'gsi1', KeySchema: keySchema('gsi1pk', 'gsi1sk'), Projection: { ProjectionType: 'ALL' } },
          { IndexName: 'gsi2', KeySchema: keySchema('gsi2pk', 'gsi2sk'), Projection: { ProjectionType: 'ALL' } },
          { IndexName: 'gsi3', KeySchema: keySchema('gsi3pk', 'gsi3sk'), Projection: { ProjectionType: 'ALL' } },
        ],
      },
    });
    expect(tableDefinition.indexes.map((i) => i.name)).toEqual(['gsi1', 'gsi2', 'gsi3']);
  });
});

describe('queues', () => {
  it.each(queueDefinitions.map((d) => [d.name, d] as const))('%s has an encrypted, TLS-only DLQ, redrive and a depth alarm', (name, definition) => {
    const { queue, deadLetterQueue } = stack.queues.get(name);
    const queueId = logicalIdOf(queue);
    const dlqId = logicalIdOf(deadLetterQueue);
    expect(props(queueId)).toMatchObject({
      VisibilityTimeout: definition.visibilityTimeout,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: definition.maxReceiveCount },
    });
    expect(definition.maxReceiveCount).toBeGreaterThanOrEqual(5);
    expect(props(dlqId)).toMatchObject({ SqsManagedSseEnabled: true });
    for (const id of [queueId, dlqId]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: Match.anyValue(),
    });
  });

  it('wires queue, stream and schedule triggers from the catalog', () => {
    const by = (type: FunctionSpec['trigger']['type']) => catalog.filter((f) => f.trigger.type === type);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', by('queue').length + by('stream').length);
    template.resourceCountIs('AWS::Events::Rule', by('schedule').length);
  });

  it('streams new images of the table to its consumer: new event items only, retried from the first failure, bisected, then described in the events dead-letter queue', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    const dlqId = logicalIdOf(stack.queues.get('events').deadLetterQueue);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: 12 * 60 * 60,
      DestinationConfig: { OnFailure: { Destination: Match.objectLike({ 'Fn::GetAtt': Match.arrayWith([dlqId]) }) } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } }) }] },
    });
  });
});

describe('outputs and settings', () => {
  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', { Value: { Ref: tableId } });
  });

  it('reads settings from context, where -c values are strings', () => {
    const node = new App({
      context: {
        apiRateLimit: '50',
        logLevel: 'debug',
        otpSenderEmail: 'otp@shop.test',
        createSesIdentity: 'false',
        sesSandbox: 'true',
        logRetentionDays: '30',
      },
    }).node;
    expect(settingsFromContext(node)).toMatchObject({
      apiRateLimit: 50,
      apiBurstLimit: defaultSettings.apiBurstLimit,
      logLevel: 'DEBUG',
      otpSenderEmail: 'otp@shop.test',
      createSesIdentity: false,
      sesSandbox: true,
      logRetention: 30,
    });
    expect(() => settingsFromContext(new App({ context: { apiRateLimit: 'lots' } }).node)).toThrow(/apiRateLimit/);
  });

  it('hands the SMS and WhatsApp settings to the functions that send them (invoice sends, the reconciler re-sending one), and only the set ones', () => {
    // Prepare: a stack from context with an SMS identity and a WhatsApp number
    const withMessaging = new App({
      context: { 'aws:cdk:bundling-stacks': [], smsOriginationIdentity: 'pool-1', whatsappPhoneNumberId: 'phone-number-id-7' },
    });
    const settings = settingsFromContext(withMessaging.node);
    const built = mergedTemplate(new PaymentOrchestrationStack(withMessaging, 'WithMessaging', { settings })).toJSON().Resources as Record<
      string,
      Resource
    >;
    // Assess
    expect(settings.messaging).toEqual({ SMS_ORIGINATION_IDENTITY: 'pool-1', WHATSAPP_PHONE_NUMBER_ID: 'phone-number-id-7' });
    const senders = Object.values(built).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties?.Environment ?? {}).includes('SMS_ORIGINATION_IDENTITY'),
    );
    expect([...MESSAGE_SENDERS].sort()).toEqual(['invoices/send', 'workers/reconciler']);
    expect(senders).toHaveLength(MESSAGE_SENDERS.size);
    expect((senders[0]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      SMS_ORIGINATION_IDENTITY: 'pool-1',
      WHATSAPP_PHONE_NUMBER_ID: 'phone-number-id-7',
    });
    expect(JSON.stringify(senders[0]!.Properties!.Environment)).not.toContain('SMS_CONFIGURATION_SET');
    for (const spec of catalog) {
      const sms = statementsOf(spec.name).filter((s) => actionsOf([s]).includes('sms-voice:SendTextMessage'));
      expect(sms, spec.name).toHaveLength(MESSAGE_SENDERS.has(spec.name) ? 1 : 0);
    }
  });
});
