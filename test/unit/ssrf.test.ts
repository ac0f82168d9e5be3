import { describe, expect, it, vi } from 'vitest';
import { classifyAddress, resolveAndCheck, validateWebhookUrl, type AddressCategory, type HostLookup } from '../../shared/webhooks/ssrf.ts';

/** A resolver that answers from a fixed table (never the network); unknown names fail like getaddrinfo does. */
const fakeDns = (table: Record<string, string[]>): HostLookup =>
  vi.fn(async (hostname: string) => {
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

const remote = { allowLoopbackHttp: false };
const local = { allowLoopbackHttp: true };

describe('classifyAddress', () => {
  const cases: [string, AddressCategory][] = [
    // IPv4 public, including the addresses right outside each refused range
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    [PUBLIC_V4, 'public'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['223.255.255.255', 'public'],
    // IPv4 refused
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.253', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
    // IPv6 public
    [PUBLIC_V6, 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2002:808:808::1', 'public'],
    // IPv6 refused
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fec0::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'private'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'], // Teredo
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible
    ['64:ff9b:1::a00:1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3
    // Embedded IPv4 decides
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:a00:1::', 'private'],
    // Not an IP address at all: never public
    ['example.com', 'reserved'],
    ['', 'reserved'],
    ['1.2.3', 'reserved'],
    ['2130706433', 'reserved'],
    ['::g', 'reserved'],
    ['01.2.3.4', 'reserved'],
  ];

  it.each(cases)('classifies %s as %s', (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
  });
});

describe('validateWebhookUrl: refused at configure time', () => {
  /** [url, substring expected in the reason] — local mode off. */
  const refused: [string, string][] = [
    ['http://169.254.169.254/latest/meta-data/', 'category: metadata'],
    ['https://169.254.169.254', 'category: metadata'],
    ['https://169.254.169.254/computeMetadata/v1/', 'category: metadata'],
    ['https://169.254.170.2/v2/credentials', 'category: metadata'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'category: metadata'],
    ['https://[::ffff:a9fe:a9fe]', 'category: metadata'],
    ['https://[::ffff:169.254.169.254]', 'category: metadata'],
    ['https://[64:ff9b::a9fe:a9fe]', 'category: metadata'],
    ['https://[2002:a9fe:a9fe::1]', 'category: metadata'],
    ['https://10.0.0.1', 'category: private'],
    ['http://10.0.0.1', 'category: private'],
    ['https://172.16.5.4', 'category: private'],
    ['https://172.31.255.255/hook', 'category: private'],
    ['https://192.168.1.1', 'category: private'],
    ['https://[::ffff:10.0.0.1]', 'category: private'],
    ['https://[fc00::1]', 'category: private'],
    ['https://[fd12:3456::1]', 'category: private'],
    ['https://[::1]', 'category: loopback'],
    ['http://[::1]:4000/hook', 'category: loopback'],
    ['https://[::ffff:127.0.0.1]', 'category: loopback'],
    ['https://127.0.0.1', 'category: loopback'],
    ['http://127.0.0.1:4000/hook', 'category: loopback'],
    ['https://2130706433', 'category: loopback'], // decimal
    ['https://0x7f.0.0.1', 'category: loopback'], // hex octet
    ['https://0x7f.1', 'category: loopback'], // hex, short form
    ['https://017700000001', 'category: loopback'], // octal
    ['https://0177.0.0.1', 'category: loopback'], // octal octet
    ['https://127.1', 'category: loopback'], // short form
    ['https://127.0.0.1.', 'category: loopback'], // trailing dot
    ['https://%31%32%37.0.0.1', 'category: loopback'], // percent-encoded
    ['https://0.0.0.0', 'category: unspecified'],
    ['https://0', 'category: unspecified'],
    ['https://[::]', 'category: unspecified'],
    ['https://[fe80::1]', 'category: link_local'],
    ['https://169.254.10.10', 'category: link_local'],
    ['https://100.64.0.1', 'category: cgnat'],
    ['https://224.0.0.1', 'category: multicast'],
    ['https://[ff02::1]', 'category: multicast'],
    ['https://4294967295', 'category: reserved'], // 255.255.255.255
    ['https://240.0.0.1', 'category: reserved'],
    ['https://198.18.0.1', 'category: reserved'],
    ['https://192.0.2.10', 'category: documentation'],
    ['https://198.51.100.7', 'category: documentation'],
    ['https://203.0.113.9', 'category: documentation'],
    ['https://[2001:db8::1]', 'category: documentation'],
    ['https://localhost', 'loopback host name'],
    ['https://localhost.', 'loopback host name'],
    ['https://LOCALHOST:8443/x', 'loopback host name'],
    ['https://foo.localhost', 'loopback host name'],
    ['http://localhost:4000/x', 'loopback host name'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'internal host name'],
    ['https://ip-10-0-0-1.ec2.internal', 'internal host name'],
    ['https://printer.local', 'internal host name'],
    ['https://router.home.arpa', 'internal host name'],
    ['https://metadata', 'single-label'],
    ['https://instance-data/latest/', 'single-label'],
    ['ftp://example.com', 'scheme ftp:'],
    ['file:///etc/passwd', 'scheme file:'],
    ['gopher://example.com:70/_x', 'scheme gopher:'],
    ['javascript:alert(1)', 'scheme javascript:'],
    ['http://example.com', 'must use https'],
    ['http://8.8.8.8/hook', 'must use https'],
    ['https://user:pass@example.com', 'credentials'],
    ['https://user@example.com/hook', 'credentials'],
    ['https://:secret@example.com/hook', 'credentials'],
    ['not a url', 'not a valid absolute URL'],
    ['/relative/hook', 'not a valid absolute URL'],
    ['https://', 'not a valid absolute URL'],
    ['https://1.2.3.4.5/', 'not a valid absolute URL'],
    ['', 'required'],
    [`https://example.com/${'a'.repeat(2048)}`, 'longer than 2048'],
  ];

  it(`has a long list of refused cases (${refused.length})`, () => {
    expect(refused.length).toBeGreaterThanOrEqual(25);
  });

  it.each(refused)('refuses %s', (url, reason) => {
    const check = validateWebhookUrl(url, remote);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
  });

  /** Local mode lets loopback through, and nothing else. */
  const refusedInLocalMode: [string, string][] = [
    ['http://169.254.169.254/latest/meta-data/', 'category: metadata'],
    ['http://10.0.0.1:4000/hook', 'category: private'],
    ['http://0.0.0.0:4000/hook', 'category: unspecified'],
    ['http://[fe80::1]:4000/hook', 'category: link_local'],
    ['http://example.com/hook', 'must use https'],
    ['http://metadata.google.internal/', 'internal host name'],
    ['ftp://127.0.0.1/', 'scheme ftp:'],
    ['http://user:pass@127.0.0.1:4000/', 'credentials'],
  ];

  it.each(refusedInLocalMode)('refuses %s even in local mode', (url, reason) => {
    const check = validateWebhookUrl(url, local);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
  });
});

describe('validateWebhookUrl: allowed', () => {
  it.each([
    'https://example.com/hook',
    'https://hooks.example.com:8443/path/to/hook?merchant=42',
    'https://example.com./hook',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://xn--bcher-kva.example/hook',
  ])('accepts %s', (raw) => {
    const check = validateWebhookUrl(raw, remote);
    expect(check).toMatchObject({ ok: true });
    if (check.ok) expect(check.url).toBeInstanceOf(URL);
  });

  it('returns the parsed, normalised URL', () => {
    const check = validateWebhookUrl('HTTPS://Hooks.Example.COM:443/a?b=1', remote);
    expect(check.ok && check.url.href).toBe('https://hooks.example.com/a?b=1');
  });

  it('accepts a URL of exactly 2048 characters', () => {
    const prefix = 'https://example.com/';
    const raw = prefix + 'a'.repeat(2048 - prefix.length);
    expect(raw).toHaveLength(2048);
    expect(validateWebhookUrl(raw, remote).ok).toBe(true);
  });

  it.each([
    'http://127.0.0.1:4000/hook',
    'http://localhost:4000/x',
    'http://[::1]:4000/x',
    'https://localhost:4000/x',
    'http://127.0.0.2:4000/x',
    'http://localhost.:4000/x',
    'http://hooks.localhost:4000/x',
  ])('accepts %s only in local mode', (raw) => {
    expect(validateWebhookUrl(raw, local)).toMatchObject({ ok: true });
    expect(validateWebhookUrl(raw, remote)).toMatchObject({ ok: false });
  });

  it('still accepts public https URLs in local mode', () => {
    expect(validateWebhookUrl('https://example.com/hook', local).ok).toBe(true);
  });
});

describe('resolveAndCheck', () => {
  const dns = fakeDns({
    'example.com': [PUBLIC_V4],
    'v6.example.com': [PUBLIC_V6],
    'multi.example.com': [PUBLIC_V4, '8.8.8.8', PUBLIC_V6],
    'evil.example.com': ['10.0.0.5'],
    'mixed.example.com': [PUBLIC_V4, '10.0.0.5'],
    'mixed-first-private.example.com': ['192.168.0.10', PUBLIC_V4],
    'metadata.example.com': ['169.254.169.254'],
    'loopback.example.com': ['127.0.0.1'],
    'loopback6.example.com': ['::1'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'imds6.example.com': ['fd00:ec2::254'],
    'ula.example.com': [PUBLIC_V6, 'fd00::1'],
    'zero.example.com': ['0.0.0.0'],
    'cgnat.example.com': ['100.64.0.1'],
    'empty.example.com': [],
    'garbage.example.com': ['not-an-ip'],
    localhost: ['127.0.0.1', '::1'],
  });

  /** [host, substring expected in the reason] — loopback not allowed. */
  const refused: [string, string][] = [
    ['evil.example.com', 'resolves to 10.0.0.5'],
    ['mixed.example.com', 'category: private'],
    ['mixed-first-private.example.com', 'category: private'],
    ['metadata.example.com', 'category: metadata'],
    ['loopback.example.com', 'category: loopback'],
    ['loopback6.example.com', 'category: loopback'],
    ['mapped.example.com', 'category: loopback'],
    ['imds6.example.com', 'category: metadata'],
    ['ula.example.com', 'category: private'],
    ['zero.example.com', 'category: unspecified'],
    ['cgnat.example.com', 'category: cgnat'],
    ['localhost', 'category: loopback'],
    ['garbage.example.com', 'category: reserved'],
    ['empty.example.com', 'no address'],
    ['nxdomain.example.com', 'DNS lookup failed for nxdomain.example.com (ENOTFOUND)'],
    ['10.1.2.3', 'category: private'],
    ['169.254.169.254', 'category: metadata'],
    ['[::1]', 'category: loopback'],
    ['::ffff:a9fe:a9fe', 'category: metadata'],
    ['fe80::1%eth0', 'category: link_local'],
    ['', 'no host'],
  ];

  it.each(refused)('refuses %s', async (host, reason) => {
    const check = await resolveAndCheck(host, { allowLoopback: false, lookup: dns });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.reason).toContain(reason);
    }
  });

  it('says the address was refused for its category', async () => {
    const check = await resolveAndCheck('evil.example.com', { allowLoopback: false, lookup: dns });
    expect(check).toEqual({
      ok: false,
      reason: 'refused: evil.example.com resolves to 10.0.0.5, which is a non-public address (category: private)',
    });
  });

  it('refuses a private address in local mode too: only loopback is let through', async () => {
    expect((await resolveAndCheck('evil.example.com', { allowLoopback: true, lookup: dns })).ok).toBe(false);
    expect((await resolveAndCheck('metadata.example.com', { allowLoopback: true, lookup: dns })).ok).toBe(false);
    expect((await resolveAndCheck('0.0.0.0', { allowLoopback: true, lookup: dns })).ok).toBe(false);
  });

  it('allows a host whose every address is public and returns the first one to pin to', async () => {
    expect(await resolveAndCheck('example.com', { allowLoopback: false, lookup: dns })).toEqual({
      ok: true,
      address: PUBLIC_V4,
      family: 4,
    });
    expect(await resolveAndCheck('multi.example.com', { allowLoopback: false, lookup: dns })).toEqual({
      ok: true,
      address: PUBLIC_V4,
      family: 4,
    });
    expect(await resolveAndCheck('v6.example.com', { allowLoopback: false, lookup: dns })).toEqual({
      ok: true,
      address: PUBLIC_V6,
      family: 6,
    });
  });

  it('allows loopback only with allowLoopback', async () => {
    expect(await resolveAndCheck('localhost', { allowLoopback: true, lookup: dns })).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    expect(await resolveAndCheck('loopback6.example.com', { allowLoopback: true, lookup: dns })).toEqual({
      ok: true,
      address: '::1',
      family: 6,
    });
  });

  it('checks IP literals without DNS', async () => {
    const lookup = vi.fn<HostLookup>();
    expect(await resolveAndCheck('127.0.0.1', { allowLoopback: true, lookup })).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect(await resolveAndCheck('[::1]', { allowLoopback: true, lookup })).toEqual({ ok: true, address: '::1', family: 6 });
    expect(await resolveAndCheck('8.8.8.8', { allowLoopback: false, lookup })).toEqual({ ok: true, address: '8.8.8.8', family: 4 });
    expect((await resolveAndCheck('10.0.0.1', { allowLoopback: false, lookup })).ok).toBe(false);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('does not throw when the resolver throws something that is not an error', async () => {
    const lookup: HostLookup = () => Promise.reject('boom');
    expect(await resolveAndCheck('example.com', { allowLoopback: false, lookup })).toEqual({
      ok: false,
      reason: 'DNS lookup failed for example.com',
    });
  });
});

describe('configure-time check: static validation, then resolution of the host', () => {
  const dns = fakeDns({ 'example.com': [PUBLIC_V4], 'rebind.example.com': [PUBLIC_V4, '169.254.169.254'] });
  const configureCheck = async (raw: string) => {
    const url = validateWebhookUrl(raw, remote);
    if (!url.ok) return url;
    return resolveAndCheck(url.url.hostname, { allowLoopback: false, lookup: dns });
  };

  it('accepts a public https endpoint', async () => {
    expect(await configureCheck('https://example.com/hook')).toMatchObject({ ok: true, address: PUBLIC_V4 });
  });

  it('refuses a host that resolves to the metadata address among public ones', async () => {
    expect(await configureCheck('https://rebind.example.com/hook')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('category: metadata'),
    });
  });

  it('refuses a host that does not resolve', async () => {
    expect(await configureCheck('https://nowhere.example.com/hook')).toMatchObject({ ok: false });
  });
});
