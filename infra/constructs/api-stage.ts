import { Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  CfnGatewayResponse,
  type CfnMethod,
  CfnRequestValidator,
  Deployment,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type RestApi,
  Stage,
} from 'aws-cdk-lib/aws-apigateway';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';

export interface ApiStageProps {
  api: RestApi;
  stageName: string;
  /** Stage-wide steady-state requests per second. */
  throttlingRateLimit: number;
  throttlingBurstLimit: number;
  logRetention: RetentionDays;
  logKey: IKey;
}

/**
 * The API's deployment and its stage: throttled, traced, with JSON access logs. Built after every area's routes:
 * the deployment depends on each method (CloudFormation deploys the area stacks first), and its logical id hashes
 * the API's whole definition, wherever its parts live, so that any change to a method, gateway response or request
 * validator makes a new deployment (a deployment is a snapshot; an unchanged one would keep serving the old API).
 */
export class ApiStage extends Construct {
  readonly stage: Stage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ApiStageProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, encryptionKey: props.logKey });
    // `Deployment` itself hashes the RestApi's own properties and depends on every method of the API.
    const deployment = new Deployment(this, 'Deployment', { api: props.api, description: 'Payment orchestration API' });
    for (const { part, definition } of definitionOf(props.api)) {
      deployment.node.addDependency(part);
      deployment.addToLogicalId(definition);
    }
    const hashedMethods = props.api.methods.length;
    this.node.addValidation({
      validate: () =>
        props.api.methods.length === hashedMethods ? [] : ['Methods were added after the API stage: build the stage after every route'],
    });

    this.stage = new Stage(this, 'Stage', {
      deployment,
      stageName: props.stageName,
      throttlingRateLimit: props.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit,
      tracingEnabled: true,
      metricsEnabled: true,
      // Execution logs for errors only, and never bodies: requests carry card data, responses carry new API keys.
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      accessLogDestination: new LogGroupLogDestination(this.accessLogs),
      accessLogFormat: AccessLogFormat.custom(
        JSON.stringify({
          requestId: AccessLogField.contextRequestId(),
          extendedRequestId: AccessLogField.contextExtendedRequestId(),
          requestTime: AccessLogField.contextRequestTime(),
          ip: AccessLogField.contextIdentitySourceIp(),
          userAgent: AccessLogField.contextIdentityUserAgent(),
          method: AccessLogField.contextHttpMethod(),
          resourcePath: AccessLogField.contextResourcePath(),
          path: AccessLogField.contextPath(),
          protocol: AccessLogField.contextProtocol(),
          status: AccessLogField.contextStatus(),
          responseLength: AccessLogField.contextResponseLength(),
          responseLatency: AccessLogField.contextResponseLatency(),
          integrationStatus: AccessLogField.contextIntegrationStatus(),
          integrationLatency: AccessLogField.contextIntegrationLatency(),
          integrationError: AccessLogField.contextIntegrationErrorMessage(),
          errorType: AccessLogField.contextErrorResponseType(),
          wafStatus: AccessLogField.contextWafStatus(),
          xrayTraceId: AccessLogField.contextXrayTraceId(),
        }),
      ),
    });

    Validations.of(this.stage).acknowledge(
      {
        id: 'PCI.DSS.321-APIGWCacheEnabledAndEncrypted',
        reason:
          'No stage cache: responses are per merchant and per credential, and payments, keys and idempotent replays ' +
          'must never be served stale or across callers.',
      },
      {
        id: 'PCI.DSS.321-APIGWSSLEnabled',
        reason:
          'Stage client certificates authenticate API Gateway to HTTP back ends; every integration here is a Lambda ' +
          'proxy invoked through the Lambda API with IAM (SigV4), which a client certificate does not apply to.',
      },
    );
  }
}

/**
 * The parts of the API a deployment snapshots, each with what defines it, resolved in its own stack (a method's
 * integration names its function there): methods, gateway responses and request validators.
 */
export function definitionOf(api: RestApi): { part: IConstruct; definition: unknown }[] {
  const resolved = (part: IConstruct, definition: Record<string, unknown>) => ({ part, definition: Stack.of(part).resolve(definition) });
  const methods = api.methods.map((method) => {
    const cfn = method.node.defaultChild as CfnMethod;
    return resolved(cfn, {
      method: `${cfn.httpMethod} ${method.resource.path}`,
      authorizationType: cfn.authorizationType,
      integration: cfn.integration,
      operationName: cfn.operationName,
      requestParameters: cfn.requestParameters,
      requestValidatorId: cfn.requestValidatorId,
    });
  });
  const others = api.node.findAll().flatMap((part) => {
    if (part instanceof CfnGatewayResponse) {
      const { responseType, statusCode, responseTemplates, responseParameters } = part;
      return [resolved(part, { gatewayResponse: { responseType, statusCode, responseTemplates, responseParameters } })];
    }
    if (part instanceof CfnRequestValidator) {
      const { name, validateRequestBody, validateRequestParameters } = part;
      return [resolved(part, { validator: { name, validateRequestBody, validateRequestParameters } })];
    }
    return [];
  });
  return [...methods, ...others];
}
