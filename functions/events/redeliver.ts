import { redeliverEvent } from '../../shared/domain/event-log.ts';
import { http } from '../../shared/http/index.ts';
import { RedeliverEventBody } from '../../shared/schemas/webhooks.ts';
import { EventRedelivery } from '../../shared/schemas/responses/webhooks.ts';

export const handler = http(
  { auth: 'merchant', permission: 'webhooks:write', params: { id: 'event' }, body: RedeliverEventBody, idempotent: true, response: EventRedelivery },
  async ({ merchant, params, body }) => redeliverEvent(merchant, params.id, body),
);
