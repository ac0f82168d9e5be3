import { shopperReturned } from '../../shared/domain/three-d-secure.ts';
import { http } from '../../shared/http/index.ts';
import { shopperStepAnswer } from '../../shared/hosted/three-d-secure-pages.ts';
import { ReturnQuery } from '../../shared/schemas/hosted.ts';

/** The provider brings the shopper back here: the payment is finished at the provider, the shopper sent to the merchant. */
export const handler = http(
  { auth: 'public', params: { id: 'payment' }, query: ReturnQuery, file: 'text/html', redirects: true },
  async ({ params, query }) => shopperStepAnswer(await shopperReturned(params.id, query as Record<string, string>)),
);
