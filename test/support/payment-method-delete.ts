import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { handler as remove } from '../../functions/payment-methods/delete.ts';
import { handler as removalWorker } from '../../functions/workers/payment-method-removal.ts';
import { config } from '../../shared/config.ts';
import { type EventsMessage, eventsQueue } from '../../shared/events/queue.ts';
import { type RemovalMessage, removalsQueue } from '../../shared/events/removals.ts';
import { db } from '../../shared/store/client.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from './lambda.ts';
import { bearer } from './merchant.ts';
import { streamEvents } from './stream.ts';

/** `DELETE /api/payment_methods/:id`. */
export const deletePaymentMethod = (key: string, id: string) =>
  invokeHttp(remove, apiEvent({ method: 'DELETE', path: `/api/payment_methods/${id}`, headers: bearer(key) }));

/** The vault's items (card table and CVC table) of one payment method, as DynamoDB Local holds them. */
export async function vaultItemsOf(paymentMethodId: string): Promise<Record<string, unknown>[]> {
  const scan = async (TableName: string) =>
    (
      await db.send(
        new ScanCommand({ TableName, FilterExpression: 'contains(pk, :pm)', ExpressionAttributeValues: { ':pm': `#${paymentMethodId}` } }),
      )
    ).Items ?? [];
  return [...(await scan(config.VAULT_TABLE!)), ...(await scan(config.VAULT_CVC_TABLE!))];
}

/**
 * Runs the table stream's worker on the merchant's new events, as Lambda would, and answers what it sent: to the
 * events queue, and to the removals queue (captured instead of sent, so the test runs their workers itself).
 */
export async function streamed(merchantId: string): Promise<{ events: EventsMessage[]; removals: RemovalMessage[] }> {
  const sent = { events: [] as EventsMessage[], removals: [] as RemovalMessage[] };
  const real = { events: eventsQueue.send, removals: removalsQueue.send };
  eventsQueue.send = async (messages) => void sent.events.push(...messages);
  removalsQueue.send = async (messages) => void sent.removals.push(...messages);
  try {
    await streamEvents(merchantId);
  } finally {
    eventsQueue.send = real.events;
    removalsQueue.send = real.removals;
  }
  return sent;
}

/** Runs the removals worker on these messages, as SQS would hand them over; answers the records it reports failed. */
export async function runRemovals(messages: readonly RemovalMessage[]): Promise<string[]> {
  const result = await removalWorker(queueEvent(messages, 'removals'), fakeContext({ name: 'workers/payment-method-removal' }));
  return result.batchItemFailures.map((f) => f.itemIdentifier);
}
