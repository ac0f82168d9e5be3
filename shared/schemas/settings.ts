import * as v from 'valibot';
import { checkoutOrigin, isCheckoutOrigin, MAX_CHECKOUT_ORIGINS } from '../domain/origins.ts';
import { Email } from './common.ts';

const Origin = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(300),
  v.check(isCheckoutOrigin, 'an origin: https:// then a host and an optional port, no path (http:// only for localhost, 127.0.0.1 or [::1])'),
  v.transform(checkoutOrigin),
);

/** `PUT /api/settings`: the fields sent replace their values; `checkout_origins` as a whole list. */
export const UpdateSettingsBody = v.object({
  checkout_origins: v.optional(
    v.pipe(
      v.array(Origin),
      v.maxLength(MAX_CHECKOUT_ORIGINS),
      v.transform((origins) => [...new Set(origins)]),
      v.description('the origins of the pages that may frame the hosted card fields (`frame-ancestors`); [] allows none'),
      v.examples([['https://shop.example']]),
    ),
  ),
  business_name: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.minLength(1, 'a name of 1 to 100 characters'),
      v.maxLength(100, 'a name of 1 to 100 characters'),
      v.description('the name shoppers see on every hosted page, receipt, invoice PDF and e-mail (both modes); until set, the sign-up e-mail'),
      v.examples(['Acme Tees']),
    ),
  ),
  brand_color: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb'),
        v.toLowerCase(),
        v.description("the accent of the shopper pages' buttons and headings (both modes); null: the default"),
        v.examples(['#0f766e']),
      ),
    ),
  ),
  support_email: v.optional(
    v.nullable(v.pipe(Email, v.description('where shoppers may write, shown on receipts and pages (both modes); null: none'))),
  ),
});
