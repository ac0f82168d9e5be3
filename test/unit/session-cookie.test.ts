import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, sessionCookie, sessionFromCookie } from '../../shared/http/cookies.ts';

describe('the dashboard session cookie', () => {
  it('is Secure where the API is served over HTTPS (deployed), not on the local http gateway', () => {
    // Act
    const deployed = sessionCookie('sess_abc', 'https://api.shop.test/v1');
    const local = sessionCookie('sess_abc', 'http://localhost:3000');
    // Assess
    expect(deployed).toBe('po_session=sess_abc; Path=/api; HttpOnly; SameSite=Strict; Max-Age=43200; Secure');
    expect(local).toBe('po_session=sess_abc; Path=/api; HttpOnly; SameSite=Strict; Max-Age=43200');
    expect(clearedSessionCookie('https://api.shop.test')).toBe('po_session=; Path=/api; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
  });

  it('is read from a Cookie header among others; an empty one counts as none', () => {
    expect(sessionFromCookie('theme=dark; po_session=sess_x; lang=en')).toBe('sess_x');
    expect(sessionFromCookie('theme=dark')).toBeUndefined();
    expect(sessionFromCookie('po_session=')).toBeUndefined();
    expect(sessionFromCookie(undefined)).toBeUndefined();
    expect(() => sessionFromCookie('po_session=sess_a; po_session=sess_b')).toThrow('two session cookies');
  });
});
