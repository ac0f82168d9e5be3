import { capturePayment } from '../../shared/domain/payment-lifecycle.ts';
import { http } from '../../shared/http/index.ts';
import { CaptureBody } from '../../shared/schemas/payments.ts';
import { Payment } from '../../shared/schemas/responses/payments.ts';

export const handler = http(
  {
    auth: 'merchant',
    permission: 'payments:write',
    params: { id: 'payment' },
    body: CaptureBody,
    idempotent: true,
    response: Payment,
    errors: [500],
  },
  async ({ merchant, params, body, origin }) => capturePayment(merchant, params.id, body, origin),
);
