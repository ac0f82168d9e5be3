import { describe, expect, it } from 'vitest';
import { constantTimeEqual, newApiKey, newOtp, newSessionToken, randomBase62, sha256 } from '../../shared/model/credentials.ts';
import { isId, newId } from '../../shared/model/ids.ts';

describe('credentials', () => {
  it('issues API keys as the mode prefix plus 32 random bytes in base62', () => {
    const live = newApiKey('live');
    const test = newApiKey('test');
    expect(live).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(test).toMatch(/^sk_test_[0-9A-Za-z]{43}$/);
    expect(newApiKey('test')).not.toBe(test);
  });

  it('issues session tokens with the sess_ prefix', () => {
    expect(newSessionToken()).toMatch(/^sess_[0-9A-Za-z]{43}$/);
  });

  it('spreads base62 output over the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 200 }, () => randomBase62()).join(''));
    expect(seen.size).toBe(62);
  });

  it('makes 6-digit OTPs, keeping leading zeros', () => {
    const otps = Array.from({ length: 2000 }, newOtp);
    expect(otps.every((o) => /^\d{6}$/.test(o))).toBe(true);
    expect(otps.some((o) => o.startsWith('0'))).toBe(true);
  });

  it('compares secrets in constant time and hashes them with SHA-256', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('identifiers', () => {
  it('are the prefix plus a lowercase ULID, sortable by time', () => {
    const a = newId('customer', 1_700_000_000_000);
    const b = newId('customer', 1_700_000_000_001);
    expect(a).toMatch(/^cus_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
    expect(isId('customer', a)).toBe(true);
  });

  it('rejects other prefixes, other lengths, uppercase and non-strings', () => {
    const id = newId('customer');
    expect(isId('payment', id)).toBe(false);
    expect(isId('customer', id.slice(0, -1))).toBe(false);
    expect(isId('customer', id.toUpperCase())).toBe(false);
    expect(isId('customer', `${id}0`)).toBe(false);
    expect(isId('customer', undefined)).toBe(false);
    expect(isId('customer', 'cus_../../etc/passwd')).toBe(false);
  });
});
