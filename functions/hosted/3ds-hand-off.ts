import { handOff } from '../../shared/domain/three-d-secure.ts';
import { http } from '../../shared/http/index.ts';
import { shopperStepAnswer } from '../../shared/hosted/three-d-secure-pages.ts';
import { HandOffQuery } from '../../shared/schemas/hosted.ts';

/** `next_action.redirect_to_url.url`: the shopper on to the provider's authentication, or back to the merchant. */
export const handler = http(
  { auth: 'public', params: { id: 'payment' }, query: HandOffQuery, file: 'text/html', redirects: true },
  async ({ params, query }) => shopperStepAnswer(await handOff(params.id, query)),
);
