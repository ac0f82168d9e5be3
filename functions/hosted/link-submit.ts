import { payLink } from '../../shared/domain/payment-link-checkout.ts';
import { http, Redirect } from '../../shared/http/index.ts';
import { linkPageAnswer } from '../../shared/hosted/link-page.ts';
import { checkTypedCard, LinkFormBody } from '../../shared/schemas/hosted.ts';

/** The shopper pays on the link's page: back to the page (the receipt, or on to their bank), or the page again. */
export const handler = http(
  {
    auth: 'public',
    params: { id: 'paymentLink' },
    body: LinkFormBody,
    form: true,
    file: 'text/html',
    redirects: true,
    // a form posted from another site (the service's own origin only)
    errors: [403],
    // a public page that charges cards: a card tester gets a few tries a minute from one address
    rateLimit: { name: 'hosted-pay', limit: 10, per: 'ip' },
  },
  async ({ params, body, baseUrl }) => {
    const step = await payLink(params.id, { formId: body.form_id, ...checkTypedCard(body) }, `${baseUrl}/hosted/link/${params.id}`);
    return step.go === 'stay' ? linkPageAnswer(step.page, params.id) : new Redirect(step.url);
  },
);
