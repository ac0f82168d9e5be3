import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/store/table-definition.ts';

/**
 * The single table, built from the same definition the local runtime uses: on-demand, point-in-time recovery,
 * TTL on `expires_at`, a stream of new images (events leave through it), deletion protection, and kept when the stack is deleted (it holds the money).
 */
export class AppTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: key(tableDefinition.partitionKey),
      sortKey: key(tableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: StreamViewType[tableDefinition.streamView],
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
