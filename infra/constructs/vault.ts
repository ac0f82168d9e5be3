import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { cvcTableDefinition, vaultTableDefinition } from '../../shared/store/table-definition.ts';

/**
 * The card vault: two customer-managed KMS keys (rotated yearly), one per mode, so test and live cards are sealed
 * under different keys, and two tables built from the definitions the local runtime uses: cards (with point-in-time
 * recovery) and CVCs (none: no backup can bring a CVC back; TTL on `expires_at` ends each within the hour). Each key
 * wraps its mode's data keys (AWS Encryption SDK, shared/vault-crypto.ts); the live key also encrypts both tables at
 * rest. On demand, deletion protection; all are kept when the stack is deleted. Who may use them is the catalog's
 * `vault` (functions.ts).
 */
export class Vault extends Construct {
  readonly keys: { test: Key; live: Key };
  readonly table: Table;
  readonly cvcTable: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = (mode: 'test' | 'live', id: string) =>
      new Key(this, id, {
        description: `Payment orchestration: the card vault, ${mode} mode (card data keys${mode === 'live' ? ', vault tables at rest' : ''})`,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    this.keys = { test: key('test', 'TestKey'), live: key('live', 'LiveKey') };
    const table = (id: string, definition: typeof vaultTableDefinition | typeof cvcTableDefinition) => {
      const attribute = (name: string) => ({ name, type: AttributeType.STRING });
      return new Table(this, id, {
        partitionKey: attribute(definition.partitionKey),
        sortKey: attribute(definition.sortKey),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: definition.pointInTimeRecovery },
        timeToLiveAttribute: definition.timeToLiveAttribute,
        encryption: TableEncryption.CUSTOMER_MANAGED,
        encryptionKey: this.keys.live,
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    };
    this.table = table('Table', vaultTableDefinition);
    this.cvcTable = table('CvcTable', cvcTableDefinition);
    Validations.of(this.cvcTable).acknowledge({
      id: 'AwsSolutions-DDB3',
      reason:
        'The CVC table has no point-in-time recovery on purpose: a CVC may be kept only until its first authorization ' +
        '(at most one hour, TTL), and a backup would keep it for 35 days (PCI DSS 3.3.1). The card table has it.',
    });
  }
}
