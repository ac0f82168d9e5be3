import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SECRET_PURPOSES, SECRETS, type SecretPurpose } from '../../shared/secret-purposes.ts';

/** `fingerprints` → `Fingerprints`: the construct id of a purpose's secret. */
const idOf = (purpose: SecretPurpose): string => purpose[0]!.toUpperCase() + purpose.slice(1);

/**
 * The app's secrets, one Secrets Manager secret per purpose (shared/secret-purposes.ts), each generated at deploy time
 * and never in the template. A function is granted and told (`<variable>_ARN`) only the ones its catalog entry names
 * (AppFunction.useSecrets); it reads them with Powertools Parameters, again every SECRET_MAX_AGE_SECONDS (default
 * 300; `shared/secrets.ts`).
 */
export class AppSecrets extends Construct {
  readonly secrets: Record<SecretPurpose, Secret>;

  constructor(scope: Construct, id: string, props: { key: IKey }) {
    super(scope, id);
    const secretOf = (purpose: SecretPurpose): Secret => {
      const secret = new Secret(this, idOf(purpose), {
        description: `Payment orchestration: ${SECRETS[purpose].description}`,
        encryptionKey: props.key,
        // The plain SecretString is the key: 64 alphanumerics (~381 bits).
        generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
        // What it hashed or sealed (OTP hashes, fingerprints, sealed credentials…) is useless without it.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The secret is an HMAC or sealing key, not a credential to a system that can rotate it: rotating it would ' +
          'silently invalidate what it hashed or sealed (card fingerprints, outstanding OTPs and links, sealed ' +
          'credentials). Rotation needs key versioning in the app first.',
      });
      return secret;
    };
    this.secrets = Object.fromEntries(SECRET_PURPOSES.map((purpose) => [purpose, secretOf(purpose)])) as Record<SecretPurpose, Secret>;
  }
}
