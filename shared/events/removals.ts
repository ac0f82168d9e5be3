import * as v from 'valibot';
import { config } from '../config.ts';
import { sendJson } from '../queues-client.ts';

/** What travels on the `removals` queue: a deleted payment method whose tokens at connector accounts are to be removed. */
const RemovalMessageSchema = v.object({
  payment_method_id: v.pipe(v.string(), v.startsWith('pm_')),
  merchant_id: v.pipe(v.string(), v.startsWith('mer_')),
  livemode: v.boolean(),
});
export type RemovalMessage = v.InferOutput<typeof RemovalMessageSchema>;

/** A message body from the `removals` queue, checked at the boundary (a malformed one fails its record, then dead-letters). */
export const parseRemovalMessage = (body: string): RemovalMessage => v.parse(RemovalMessageSchema, JSON.parse(body));

/** The send to the removals queue (from the table's stream). A seam tests replace to run the worker where they want. */
export const removalsQueue = {
  send: (messages: RemovalMessage[]): Promise<void> => sendJson(config.REMOVALS_QUEUE_URL, 'removals', messages),
};
