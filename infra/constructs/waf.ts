import { ArnFormat, Aws, Fn, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { MESSAGES } from '../../shared/model/errors.ts';

export interface ApiFirewallProps {
  stage: Stage;
  /** Requests per client IP per 5 minutes before WAF answers 429. */
  rateLimitPer5Minutes: number;
  logRetention: RetentionDays;
  logKey: IKey;
}

/**
 * A regional WAF web ACL on the API stage: the AWS common rule set and known-bad-inputs rule set, and a per-IP
 * flood guard. The flood guard sits far above the app's own limits (request-otp: 100/min per IP, answered by the
 * app with its headers), so WAF only cuts floods; it answers 429 in the app's error shape. Blocked and counted
 * requests are logged, with the Authorization header redacted.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({ metricName, cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true });
    const managed = (priority: number, name: string, overrides: string[] = []): CfnWebACL.RuleProperty => ({
      name,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ruleActionOverrides: overrides.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
        },
      },
      visibilityConfig: visibility(name),
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      description: 'Payment orchestration API',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PaymentOrchestrationApi'),
      customResponseBodies: {
        RateLimited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: MESSAGES[429] },
          }),
        },
      },
      rules: [
        {
          name: 'PerIpFloodGuard',
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'RateLimited',
                responseHeaders: [{ name: 'Retry-After', value: '300' }],
              },
            },
          },
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: props.rateLimitPer5Minutes, evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility('PerIpFloodGuard'),
        },
        // The common rule set blocks bodies over 8 KB; the API accepts up to 64 KB (the handlers answer 400
        // body_too_large above that), e.g. payments with 50 metadata entries. It also blocks requests without a
        // User-Agent, which merchants' server-side clients often omit. Count both instead of blocking.
        managed(1, 'AWSManagedRulesCommonRuleSet', ['SizeRestrictions_BODY', 'NoUserAgent_HEADER']),
        managed(2, 'AWSManagedRulesKnownBadInputsRuleSet'),
      ],
    });

    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    }).node.addDependency(props.stage);

    // WAF only writes to log groups named aws-waf-logs-*; the stack id's UUID keeps the name unique per deployment.
    const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
    const logGroup = new LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${Stack.of(this).stackName}-${stackUuid}`,
      retention: props.logRetention,
      encryptionKey: props.logKey,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // The log group ARN without the trailing `:*` that `logGroupArn` carries; WAF rejects that form.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
    });
  }
}
