import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * The one customer-managed KMS key of the app (rotated yearly). It encrypts the secrets, every log group
 * (Lambda, API access logs, WAF logs: they hold client IPs and merchant ids) and the alarm topic.
 * Functions never get key permissions from here: reading a secret grants `kms:Decrypt` via Secrets Manager only.
 */
export class Encryption extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const { region, account, partition } = Stack.of(this);
    this.key = new Key(this, 'Key', {
      description: 'Payment orchestration: secrets, log groups, alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // CloudWatch Logs encrypts with the key on behalf of the log groups of this account and region only.
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchLogsOfThisAccount',
        principals: [new ServicePrincipal(`logs.${region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${partition}:logs:${region}:${account}:log-group:*` },
        },
      }),
    );
  }
}
