import { chargeInvoice } from '../../shared/domain/payment-links.ts';
import { invoked } from '../../shared/invoke.ts';
import { PayInvoiceInput } from '../../shared/schemas/private.ts';

/** Charges an invoice for its public payment page (hosted/pay-submit), the only caller: no route reaches it. */
export const handler = invoked(PayInvoiceInput, chargeInvoice);
