import { describe, expect, it } from 'vitest';
import { cspSource, locationHeader } from '../../shared/domain/header-values.ts';
import { Redirect } from '../../shared/http/response.ts';

/**
 * Header values built from someone else's URL: a URL parser keeps `;`, `,` and quotes in a host name, so a CSP source
 * or a `Location` made from one must refuse or encode whatever could add a directive or a header.
 */
describe('header values from URLs', () => {
  it.each([
    'https://shop.example;script-src/',
    'https://shop.example,evil.example/',
    'https://shop"x.example/',
    "https://shop'x.example/",
    'https://me:pw@shop.example/',
    'javascript:alert(1)',
    'data:text/html,hi',
    '/relative/path',
  ])('refuses %s for a CSP source and a Location', (url) => {
    expect(() => cspSource(url)).toThrow();
    expect(() => locationHeader(url)).toThrow();
    expect(() => new Redirect(url)).toThrow();
  });

  it('a CSP source is the bare origin: no path, query or anything after it', () => {
    expect(cspSource('https://Shop.Example:8443/done?x=1;script-src *')).toBe('https://shop.example:8443');
    expect(cspSource('http://[::1]:3001/done')).toBe('http://[::1]:3001');
  });

  it('a Location keeps the URL, every quote, space and CR LF encoded or gone', () => {
    const location = locationHeader(`https://shop.example/it's "done"?note="x' <y>;z,w\r\nSet-Cookie: a=b#"frag'`);
    expect(location).toMatch(/^[\x21-\x7e]+$/);
    expect(location).not.toMatch(/["'<>\\\r\n]/);
    expect(new URL(location).pathname).toBe('/it%27s%20%22done%22');
    expect(new URL(location).searchParams.get('note')).toBe(`"x' <y>;z,wSet-Cookie: a=b`);
    expect(new Redirect('https://shop.example/done?payment_id=pay_1').location).toBe('https://shop.example/done?payment_id=pay_1');
  });
});
