import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { vaultTableDefinition } from '../../shared/store/table-definition.ts';

/**
 * The card vault: its own customer-managed KMS key (rotated yearly) and its own table, built from the definition the
 * local runtime uses. The key wraps every card's data key (AWS Encryption SDK, shared/vault-crypto.ts) and encrypts
 * the table at rest. The table is on demand, with point-in-time recovery, TTL on `expires_at` (CVCs), deletion
 * protection; both are kept when the stack is deleted. Who may use them is the catalog's `vault` (functions.ts).
 */
export class Vault extends Construct {
  readonly key: Key;
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Payment orchestration: the card vault (card data keys, vault table at rest)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: key(vaultTableDefinition.partitionKey),
      sortKey: key(vaultTableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: vaultTableDefinition.timeToLiveAttribute,
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.key,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
