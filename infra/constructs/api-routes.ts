import { Validations } from 'aws-cdk-lib';
import { AwsIntegration, type IResource, Resource } from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { HttpFunctionSpec } from '../../functions/catalog.ts';
import { PATH_PREFIXES } from '../areas.ts';
import type { AppApi } from './api.ts';
import type { AppFunction } from './functions.ts';

export interface ApiRoutesProps {
  api: AppApi;
  /** HTTP functions of one area; each becomes one method on its path. */
  functions: readonly (AppFunction & { spec: HttpFunctionSpec })[];
  /** The stage allowed to invoke the functions. */
  stageName: string;
}

/** `{id}` in `/api/customers/{id}`: one API Gateway path parameter. */
const PARAM = /^\{([A-Za-z0-9_]+)\}$/;

/**
 * One area's routes, in the area's stack: the resource tree below `/api` from the catalog paths (literal segments
 * beside `{param}` segments; API Gateway matches literals first, like the local router), one Lambda proxy
 * integration per function and its invoke permission, so a method and what it calls always live in one stack.
 */
export class ApiRoutes extends Construct {
  private readonly props: ApiRoutesProps;

  constructor(scope: Construct, id: string, props: ApiRoutesProps) {
    super(scope, id);
    this.props = props;
    // `/api` as seen from this stack: what is added below it is created here.
    const roots = new Map<string, IResource>();
    const rootOf = (prefix: string): IResource => {
      const root = props.api.roots.get(prefix)!;
      if (!roots.has(prefix)) {
        // as seen from this stack: what is added below it is created here
        const id = `Prefix${prefix === '/api' ? '' : prefix.slice(1)}`;
        roots.set(prefix, Resource.fromResourceAttributes(this, id, { restApi: props.api.api, resourceId: root.resourceId, path: root.path }));
      }
      return roots.get(prefix)!;
    };
    for (const fn of props.functions) {
      const prefix = PATH_PREFIXES.find((p) => fn.spec.trigger.path.startsWith(`${p}/`));
      if (!prefix) throw new Error(`${fn.spec.trigger.method} ${fn.spec.trigger.path}: not below ${PATH_PREFIXES.join(' or ')}`);
      this.addRoute(rootOf(prefix), prefix, fn);
    }

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Authentication is the app's: a Bearer API key or session token checked against hashes in DynamoDB by the " +
          'auth middleware of every merchant endpoint (401 in the documented error shape). The only routes without it ' +
          'are the sign-in endpoints request-otp and verify-otp, which must be public.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'Merchants authenticate with API keys and OTP sign-in sessions of the app, not with Cognito user pools.',
      },
    );
  }

  private addRoute(root: IResource, prefix: string, fn: AppFunction & { spec: HttpFunctionSpec }): void {
    const { method, path } = fn.spec.trigger;
    let resource = root;
    const params: string[] = [];
    for (const segment of path.slice(prefix.length).split('/').filter(Boolean)) {
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
    // LambdaIntegration's own permission would name every stage (this API has no `deploymentStage`): this one names
    // the stage, and grants no test invocations.
    const integration = new AwsIntegration({
      proxy: true,
      service: 'lambda',
      path: `2015-03-31/functions/${fn.function.functionArn}/invocations`,
    });
    const apiMethod = resource.addMethod(method, integration, {
      operationName: fn.spec.name,
      requestValidator: this.props.api.validator,
      requestParameters: Object.fromEntries(params.map((p) => [`method.request.path.${p}`, true])),
    });
    fn.function.addPermission('ApiInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      scope: apiMethod,
      sourceArn: this.props.api.api.arnForExecuteApi(method, path.replace(/\{[^}]*\}/g, '*'), this.props.stageName),
    });
  }
}
