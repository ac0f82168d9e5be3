import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/**
 * The app's HMAC key (OTP hashes, card fingerprints), generated at deploy time and never in the template.
 * Functions read it through `APP_SECRET_ARN` with Powertools Parameters, again every APP_SECRET_MAX_AGE_SECONDS
 * (default 300; `shared/secrets.ts`).
 */
export class AppSecret extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: { key: IKey }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'Payment orchestration: HMAC key for OTPs and card fingerprints',
      encryptionKey: props.key,
      // The plain SecretString is the key: 64 alphanumerics (~381 bits).
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      // Stored OTP hashes and card fingerprints are useless without it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret is an HMAC key, not a credential to a system that can rotate it: rotating it would silently ' +
        'invalidate every stored card fingerprint and outstanding OTP. Rotation needs key versioning in the app first.',
    });
  }
}
