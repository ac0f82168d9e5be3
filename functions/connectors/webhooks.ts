import { receiveProviderWebhook } from '../../shared/domain/inbound-webhooks.ts';
import { FileBody, http } from '../../shared/http/index.ts';

export const handler = http({ auth: 'public', params: { id: 'connector' }, rawBody: true, file: 'text/plain' }, async ({ params, raw }) => {
  const ack = await receiveProviderWebhook(params.id, raw);
  return new FileBody(ack.contentType, Buffer.from(ack.body));
});
