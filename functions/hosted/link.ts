import { visitLink } from '../../shared/domain/payment-link-checkout.ts';
import { http, Redirect } from '../../shared/http/index.ts';
import { linkPageAnswer } from '../../shared/hosted/link-page.ts';
import { LinkPageQuery } from '../../shared/schemas/hosted.ts';

/** A payment link's page: every visit a checkout; back from paying (`payment_id`), the receipt or the merchant's page. */
export const handler = http(
  { auth: 'public', params: { id: 'paymentLink' }, query: LinkPageQuery, file: 'text/html' },
  async ({ params, query, baseUrl }) => {
    const step = await visitLink(params.id, query.payment_id, `${baseUrl}/hosted/link/${params.id}`);
    return step.go === 'stay' ? linkPageAnswer(step.page, params.id) : new Redirect(step.url);
  },
);
