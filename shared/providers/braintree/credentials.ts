import * as v from 'valibot';
import { isCurrency } from '../../domain/currency.ts';

const text = (max: number) => v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(max));

export const braintreeCredentialsSchema = v.object({
  merchant_id: text(100),
  public_key: text(100),
  private_key: text(200),
  /** the merchant account to use per currency (Braintree's currency is the merchant account's) */
  merchant_account_ids: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.regex(/^[A-Z]{3}$/, 'a currency code in upper case'),
        v.check((code) => isCurrency(code), 'an ISO 4217 currency'),
      ),
      text(100),
    ),
  ),
});
export type BraintreeCredentials = v.InferOutput<typeof braintreeCredentialsSchema>;
