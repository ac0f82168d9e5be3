import * as v from 'valibot';
import { checkoutOrigin, isCheckoutOrigin, MAX_CHECKOUT_ORIGINS } from '../domain/origins.ts';

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
});
