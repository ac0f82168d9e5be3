import { chargeLink } from '../../shared/domain/payment-link-checkout.ts';
import { invoked } from '../../shared/invoke.ts';
import { PayLinkInput } from '../../shared/schemas/private.ts';

/** Charges a payment link's total for its public page (hosted/link-submit), the only caller: no route reaches it. */
export const handler = invoked(PayLinkInput, chargeLink);
