import { handler as createSubscription } from '../../functions/subscriptions/create.ts';
import { handler as renewalWorker } from '../../functions/workers/renewal.ts';
import { clock } from '../../shared/model/clock.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from './lambda.ts';
import { bearer } from './merchant.ts';

export const subscribe = (key: string, body: unknown) =>
  invokeHttp(createSubscription, apiEvent({ method: 'POST', path: '/api/subscriptions', headers: bearer(key), body }));

/** The renewal worker as Lambda runs it on one period, the clock at noon UTC of its date (the test puts the clock back). */
export async function renewOn(date: string, subscriptionId: string): Promise<void> {
  const offset = Date.parse(`${date}T12:00:00.000Z`) - Date.now();
  clock.now = () => Date.now() + offset;
  await renewalWorker(queueEvent([JSON.stringify({ subscription_id: subscriptionId, period_start: date })], 'renewals'), fakeContext());
}
