import { deflateRawSync } from 'node:zlib';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, TABLE } from '../client.ts';
import { unpack } from '../stored-form.ts';
import { scanTable } from './scan.ts';

/**
 * `npm run rollback:event-data`: the versions before events' payloads were packed (`data_p`, store/events.ts) read
 * only `data_z`, a payload deflated without a dictionary, and refuse an event without it: their delivery log answers
 * 500 on a page holding one, and their delivery worker dead-letters its deliveries. This rewrites every packed
 * payload as they read it. Run it once a rollback to such a version has finished (the events written until then are
 * rewritten; none are packed after it); safe while the API serves, and to run again. `merchantIds` rewrites those
 * merchants' events only. Returns how many it rewrote.
 */
export async function unpackEventData(options: { merchantIds?: readonly string[] } = {}): Promise<number> {
  let rewritten = 0;
  const packed = scanTable({ FilterExpression: 'attribute_exists(data_p)', ConsistentRead: true }, options.merchantIds);
  for await (const { pk, sk, data_p } of packed) {
    const written = await conditionalWrite(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk, sk },
        UpdateExpression: 'SET data_z = :deflated REMOVE data_p',
        ConditionExpression: 'attribute_exists(data_p)',
        ExpressionAttributeValues: { ':deflated': deflateRawSync(JSON.stringify(unpack(data_p as Uint8Array))) },
      }),
    );
    if (written) rewritten++;
  }
  return rewritten;
}
