import { Stack, Validations } from 'aws-cdk-lib';
import { EndpointType, type RequestValidator, type Resource, ResponseType, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { MESSAGES } from '../../shared/model/errors.ts';
import { PATH_PREFIXES } from '../areas.ts';

/**
 * The REST API itself, shared by every area's nested stack: the API, its `/api` and `/hosted` resources, the request validator and
 * API Gateway's own errors in the app's error shape. Routes are added by each area's stack (`ApiRoutes`), the
 * deployment and stage by the stage stack (`ApiStage`): a CloudFormation stack holds 500 resources at most.
 */
export class AppApi extends Construct {
  readonly api: RestApi;
  /** `/api` and `/hosted`: the parents of every area's resources, by prefix. */
  readonly roots: ReadonlyMap<string, Resource>;
  /**
   * Bodies, queries and path values are validated by the handlers (valibot) so that every 400 has the app's error
   * shape and the codes of docs/api.md "Answers and errors"; API Gateway only checks that declared path parameters are present.
   */
  readonly validator: RequestValidator;

  constructor(scope: Construct, id: string) {
    super(scope, id);
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
      // The stage stack deploys the API once every area's methods exist (`ApiStage`).
      deploy: false,
    });
    this.roots = new Map(PATH_PREFIXES.map((prefix) => [prefix, this.api.root.addResource(prefix.slice(1))]));
    this.validator = this.api.addRequestValidator('PathParameters', {
      validateRequestParameters: true,
      validateRequestBody: false,
    });
    this.addGatewayResponses();

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'A request validator is attached to every method but checks path parameters only: bodies and queries are ' +
        'validated by the handlers (valibot) so that every 400 carries the error shape and codes of docs/api.md ' +
        '(malformed JSON, body_too_large, param), identically locally and in AWS; an API Gateway model would answer ' +
        'first, in another shape, and reject the empty bodies that capture and refund accept.',
    });
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

  /** The base URL of the stage (`https://<id>.execute-api.<region>.amazonaws.com/<stage>/`), without depending on it. */
  urlOf(stageName: string): string {
    const { region, urlSuffix } = Stack.of(this);
    return `https://${this.api.restApiId}.execute-api.${region}.${urlSuffix}/${stageName}/`;
  }

  /** API Gateway's own answers (unknown route, throttling, gateway failures) in the error shape of docs/api.md "Answers and errors". */
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
