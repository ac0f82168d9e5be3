import { updatePaymentLink } from '../../shared/domain/payment-link-admin.ts';
import { http } from '../../shared/http/index.ts';
import { UpdatePaymentLinkBody } from '../../shared/schemas/payment-links.ts';
import { PaymentLink } from '../../shared/schemas/responses/payment-links.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:write', params: { id: 'paymentLink' }, body: UpdatePaymentLinkBody, response: PaymentLink },
  async ({ merchant, params, body, baseUrl }) => updatePaymentLink(merchant, params.id, body, baseUrl),
);
