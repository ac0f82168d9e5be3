import { describe, expect, it } from 'vitest';
import { refusedLink } from '../../shared/providers/documents.ts';

/* Links to provider documents (shared/providers/documents.ts): https on the provider's hosts, or its API's origin. */

const BRAINTREE = { apiOrigin: 'https://payments.braintree-api.com', domains: ['braintree-api.com', 'braintreegateway.com'] };
const FAKE = { ...BRAINTREE, apiOrigin: 'http://127.0.0.1:4010' };

describe('refusedLink', () => {
  it('allows https on the provider’s domains and their subdomains, and the API’s own origin', () => {
    expect(refusedLink('https://payments.braintree-api.com/reports/1.csv', BRAINTREE)).toBeUndefined();
    expect(refusedLink('https://reports.braintreegateway.com/x/1.csv?sig=a', BRAINTREE)).toBeUndefined();
    expect(refusedLink('https://braintreegateway.com/1.csv', BRAINTREE)).toBeUndefined();
    expect(refusedLink('http://127.0.0.1:4010/reports/1.csv', FAKE)).toBeUndefined();
  });

  it.each([
    ['http on the provider’s host', 'http://reports.braintreegateway.com/1.csv', 'http, not https'],
    ['a foreign host', 'https://evil.example/1.csv', "host evil.example is not the provider's"],
    ['a look-alike host', 'https://braintreegateway.com.evil.example/1.csv', 'is not the provider'],
    ['a suffix without a dot', 'https://evilbraintreegateway.com/1.csv', 'is not the provider'],
    ['credentials in the link', 'https://user:pw@reports.braintreegateway.com/1.csv', 'credentials'],
    ['another port of the API’s host', 'http://127.0.0.1:4011/reports/1.csv', 'http, not https'],
    ['not a URL', 'reports/1.csv', 'not a URL'],
    ['another scheme', 'file:///etc/passwd', 'file, not https'],
  ])('refuses %s', (_what, link, why) => {
    expect(refusedLink(link, FAKE)).toContain(why);
  });
});
