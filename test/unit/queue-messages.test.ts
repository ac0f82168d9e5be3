import { describe, expect, it } from 'vitest';
import { parseRenewalMessage } from '../../shared/domain/renewals.ts';
import { parseEventsMessage } from '../../shared/events/queue.ts';

describe('queue messages are parsed by schemas at the boundary', () => {
  it('reads an events message of each kind', () => {
    const named = { kind: 'event', event_id: 'evt_1', object_id: 'pay_1', merchant_id: 'mer_1', livemode: false };
    expect(parseEventsMessage(JSON.stringify(named))).toEqual(named);
    const retry = { kind: 'retry', event_id: 'evt_1', object_id: 'pay_1', webhook_id: 'whk_1', attempt: 2, first_attempt_at: 1, due_at: 2 };
    expect(parseEventsMessage(JSON.stringify(retry))).toEqual(retry);
  });

  it.each([
    ['not JSON', '{'],
    ['an unknown kind', '{"kind":"other","event_id":"evt_1"}'],
    ['a retry without its endpoint', '{"kind":"retry","event_id":"evt_1","object_id":"pay_1","attempt":1,"first_attempt_at":1,"due_at":1}'],
    ['an event without its object', '{"kind":"event","event_id":"evt_1","merchant_id":"mer_1","livemode":false}'],
    ['an event without its merchant', '{"kind":"event","event_id":"evt_1","object_id":"pay_1"}'],
    ['a retry without its object', '{"kind":"retry","event_id":"evt_1","webhook_id":"whk_1","attempt":1,"first_attempt_at":1,"due_at":1}'],
    ['an id of another entity', '{"kind":"event","event_id":"pay_1","object_id":"pay_1","merchant_id":"mer_1","livemode":false}'],
    ['a merchant id of another entity', '{"kind":"event","event_id":"evt_1","object_id":"pay_1","merchant_id":"cus_1","livemode":false}'],
    [
      'a negative attempt',
      '{"kind":"retry","event_id":"evt_1","object_id":"pay_1","webhook_id":"whk_1","attempt":-1,"first_attempt_at":1,"due_at":1}',
    ],
  ])('refuses an events message that is %s (its record fails and is dead-lettered)', (_case, body) => {
    expect(() => parseEventsMessage(body)).toThrow();
  });

  it('refuses a renewal message without its subscription', () => {
    expect(() => parseRenewalMessage('{"period_start":"2026-01-01"}')).toThrow();
  });
});
