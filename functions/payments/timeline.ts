import { paymentTimeline } from '../../shared/domain/timeline.ts';
import { http } from '../../shared/http/index.ts';
import { PaymentTimeline } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  { auth: 'merchant', permission: 'payments:read', params: { id: 'payment' }, response: PaymentTimeline },
  async ({ merchant, params }) => paymentTimeline(merchant, params.id),
);
