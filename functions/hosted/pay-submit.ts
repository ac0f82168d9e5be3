import { payInvoice, payPageWithErrors } from '../../shared/domain/payment-links.ts';
import { pdfUrlOf } from '../../shared/domain/invoices.ts';
import { http, Redirect } from '../../shared/http/index.ts';
import { payPageAnswer } from '../../shared/hosted/pay-page.ts';
import { checkTypedCard, PayFormBody, PayLinkQuery } from '../../shared/schemas/hosted.ts';

/** The customer pays the invoice from its page: back to the page (the outcome, or on to their bank), or the page again. */
export const handler = http(
  {
    auth: 'public',
    params: { id: 'invoice' },
    query: PayLinkQuery,
    body: PayFormBody,
    form: true,
    file: 'text/html',
    redirects: true,
    // a form posted from another site (the service's own origin only)
    errors: [403],
    // a public page that charges cards: a card tester gets a few tries a minute from one address
    rateLimit: { name: 'hosted-pay', limit: 10, per: 'ip' },
  },
  async ({ params, query, body, baseUrl }) => {
    const link = `${params.id}?expires=${query.expires}&signature=${query.signature}`;
    const pdf = await pdfUrlOf(params.id, baseUrl);
    const typed = body.pay_with === 'card' ? checkTypedCard(body) : undefined;
    // a card typed wrong charges nothing: the page again, each error next to its field
    if (typed && 'errors' in typed)
      return payPageAnswer(await payPageWithErrors(params.id, query, { fieldErrors: typed.errors, kept: typed.kept }), link, pdf);
    const form = typed ? { formId: body.form_id, card: typed.card } : { formId: body.form_id, saved: true as const };
    const step = await payInvoice(params.id, query, form, `${baseUrl}/hosted/pay/${link}`);
    return step.go === 'page' ? new Redirect(step.url) : payPageAnswer(step.page, link, pdf);
  },
);
