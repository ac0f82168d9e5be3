import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, TABLE } from '../client.ts';

type ScanInput = Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey' | 'FilterExpression'> & { FilterExpression: string };

/**
 * Every item of the table that the scan's filter keeps, page after page: a one-off admin job reads the whole table
 * once; no request path ever scans. `merchantIds` keeps only those merchants' items.
 */
export async function* scanTable(input: ScanInput, merchantIds?: readonly string[]): AsyncGenerator<Record<string, unknown>> {
  const only = merchantIds?.length
    ? {
        FilterExpression: `(${input.FilterExpression}) AND merchant_id IN (${merchantIds.map((_, i) => `:m${i}`).join(', ')})`,
        ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ...Object.fromEntries(merchantIds.map((id, i) => [`:m${i}`, id])) },
      }
    : {};
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ ...input, ...only, TableName: TABLE, ExclusiveStartKey: startKey }));
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
