import { Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type RequestValidator,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { HttpFunctionSpec } from '../../functions/catalog.ts';
import { MESSAGES } from '../../shared/domain/errors.ts';
import type { AppFunction } from './functions.ts';

export interface AppApiProps {
  /** The catalog's HTTP functions; each becomes one method on its path. */
  functions: readonly (AppFunction & { spec: HttpFunctionSpec })[];
  stageName: string;
  /** Stage-wide steady-state requests per second. */
  throttlingRateLimit: number;
  throttlingBurstLimit: number;
  logRetention: RetentionDays;
  logKey: IKey;
}

/** `{id}` in `/api/customers/{id}`: one API Gateway path parameter. */
const PARAM = /^\{([A-Za-z0-9_]+)\}$/;

/**
 * The REST API: one resource tree from the catalog paths (literal segments beside `{param}` segments; API Gateway
 * matches literals first, like the local router), one Lambda proxy integration per function, a throttled, traced
 * stage with JSON access logs, and API Gateway's own errors in the app's error shape.
 */
export class AppApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: AppApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, encryptionKey: props.logKey });

    this.api = new RestApi(this, 'Api', {
      // The API's metrics are keyed by this name: the stack's own, so two stacks in a region never share them.
      restApiName: Stack.of(this).stackName,
      description: 'Payment orchestration API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Lets a function answer bytes (the invoice PDF) whatever the client's Accept says; JSON bodies then arrive
      // base64-encoded, which the JSON body parser decodes.
      binaryMediaTypes: ['*/*'],
      // The account-level role API Gateway needs to write execution and access logs.
      cloudWatchRole: true,
      deployOptions: {
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
      },
    });

    // The stack has its own `ApiUrl` output; drop the one RestApi adds.
    this.api.node.tryRemoveChild('Endpoint');

    // Bodies, queries and path values are validated by the handlers (valibot) so that every 400 has the app's
    // error shape and the DECISIONS.md codes; API Gateway only checks that declared path parameters are present.
    const validator = this.api.addRequestValidator('PathParameters', {
      validateRequestParameters: true,
      validateRequestBody: false,
    });
    for (const fn of props.functions) this.addRoute(fn, validator);
    this.addGatewayResponses();

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Authentication is the app's: a Bearer API key or session token checked against hashes in DynamoDB by the " +
          'auth middleware of every merchant endpoint (401 in the documented error shape). The only routes without it ' +
          'are the sign-in endpoints request-otp and verify-otp, which must be public.',
      },
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'A request validator is attached to every method but checks path parameters only: bodies and queries are ' +
          'validated by the handlers (valibot) so that every 400 carries the error shape and codes of DECISIONS.md ' +
          '(malformed JSON, body_too_large, param), identically locally and in AWS; an API Gateway model would answer ' +
          'first, in another shape, and reject the empty bodies that capture and refund accept.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'Merchants authenticate with API keys and OTP sign-in sessions of the app, not with Cognito user pools.',
      },
    );
    Validations.of(this.api.deploymentStage).acknowledge(
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
    // Created by `cloudWatchRole: true`.
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-managed policy API Gateway documents for its account-level ' +
          'logging role; the role is assumable by apigateway.amazonaws.com only.',
      });
    }
  }

  get url(): string {
    return this.api.url;
  }

  private addRoute(fn: AppFunction & { spec: HttpFunctionSpec }, validator: RequestValidator): void {
    const { method, path } = fn.spec.trigger;
    const segments = path.split('/').filter(Boolean);
    let resource = this.api.root;
    const params: string[] = [];
    for (const segment of segments) {
      const param = PARAM.exec(segment)?.[1];
      if (param) {
        params.push(param);
        // API Gateway allows one parameter name per level: `/x/{id}` and `/x/{key}` cannot coexist.
        const sibling = resource.node.children.find((c) => PARAM.test(c.node.id) && c.node.id !== segment);
        if (sibling) throw new Error(`${method} ${path}: ${segment} conflicts with ${sibling.node.id} at the same level`);
      } else if (!/^[A-Za-z0-9._-]+$/.test(segment)) {
        throw new Error(`${method} ${path}: unsupported path segment "${segment}"`);
      }
      resource = resource.getResource(segment) ?? resource.addResource(segment);
    }
    resource.addMethod(method, new LambdaIntegration(fn.function, { proxy: true, allowTestInvoke: false }), {
      operationName: fn.spec.name,
      requestValidator: validator,
      requestParameters: Object.fromEntries(params.map((p) => [`method.request.path.${p}`, true])),
    });
  }

  /** API Gateway's own answers (unknown route, throttling, gateway failures) in the error shape of DECISIONS.md. */
  private addGatewayResponses(): void {
    const body = (type: string, code: string, message: string) =>
      `{"error":{"type":"${type}","code":"${code}","message":${message},"request_id":"$context.requestId"}}`;
    const json = (text: string) => JSON.stringify(text);
    const responses = [
      // An unknown path or method is "Missing Authentication Token" (403) by default; the local router says 404.
      {
        id: 'UnknownRoute',
        type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
        statusCode: '404',
        template: body('invalid_request_error', 'route_not_found', json(MESSAGES[404])),
      },
      {
        id: 'Throttled',
        type: ResponseType.THROTTLED,
        statusCode: '429',
        template: body('rate_limit_error', 'rate_limit_exceeded', json(MESSAGES[429])),
      },
      {
        id: 'Default4xx',
        type: ResponseType.DEFAULT_4XX,
        template: body('invalid_request_error', 'gateway_rejected', '$context.error.messageString'),
      },
      {
        id: 'Default5xx',
        type: ResponseType.DEFAULT_5XX,
        template: body('api_error', 'internal_error', json(MESSAGES[500])),
      },
    ];
    for (const r of responses) {
      this.api.addGatewayResponse(r.id, {
        type: r.type,
        ...(r.statusCode ? { statusCode: r.statusCode } : {}),
        templates: { 'application/json': r.template },
      });
    }
  }
}
