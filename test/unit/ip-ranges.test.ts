import { describe, expect, it } from 'vitest';
import { inRanges, parseCidr } from '../../shared/model/ip-ranges.ts';

describe('IP ranges', () => {
  it.each([
    ['203.0.113.0/24', { address: '203.0.113.0', prefix: 24, family: 'ipv4' }],
    ['2001:db8::/32', { address: '2001:db8::', prefix: 32, family: 'ipv6' }],
    ['198.51.100.7', { address: '198.51.100.7', prefix: 32, family: 'ipv4' }],
    ['::1', { address: '::1', prefix: 128, family: 'ipv6' }],
  ])('reads %s', (text, range) => {
    expect(parseCidr(text)).toEqual(range);
  });

  it.each([['203.0.113.0/33'], ['2001:db8::/129'], ['203.0.113/24'], ['example.com'], ['10.0.0.0/8/8'], ['10.0.0.0/-1'], ['10.0.0.0/'], ['']])(
    'refuses %j',
    (text) => {
      expect(parseCidr(text)).toBeUndefined();
    },
  );

  it('places an address inside or outside the ranges, an IPv4-mapped IPv6 address as its IPv4', () => {
    const ranges = ['203.0.113.0/24', '2001:db8::/32'];
    expect(inRanges('203.0.113.7', ranges)).toBe(true);
    expect(inRanges('::ffff:203.0.113.7', ranges)).toBe(true);
    expect(inRanges('2001:db8::42', ranges)).toBe(true);
    expect(inRanges('127.0.0.1', ranges)).toBe(false);
    expect(inRanges('::1', ranges)).toBe(false);
    expect(inRanges('unknown', ranges)).toBe(false);
  });
});
