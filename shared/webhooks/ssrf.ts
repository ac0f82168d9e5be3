/**
 * SSRF guard for merchant webhook URLs (docs/api.md "Webhooks"): non-public addresses (private, loopback, link-local,
 * metadata, …) are refused at configure time (`validateWebhookUrl`, `resolveAndCheck`) and again at delivery, where the
 * HTTP client connects to the address `resolveAndCheck` checked, so DNS rebinding cannot redirect it. Hosts are parsed
 * by WHATWG `new URL()`, which normalizes every IPv4 spelling and IPv6 literal; addresses are classified against
 * ipaddr.js's special-purpose ranges and a few of our own, never by string prefix.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where an address belongs. Anything other than `public` is refused (loopback only in local mode). */
export type AddressCategory =
  'public' | 'private' | 'loopback' | 'link_local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved' | 'cgnat' | 'documentation';

/** Resolves a host name to all of its addresses (the shape of `dns.promises.lookup(host, { all: true })`). */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };
export type AddressCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// ---------------------------------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------------------------------

/**
 * ipaddr.js's range names as our categories; a range not listed here (broadcast, Teredo, NAT64's local-use prefix,
 * discard-only, AS112, …) is `reserved`.
 */
const CATEGORY_OF_RANGE: Readonly<Record<string, AddressCategory>> = {
  unicast: 'public',
  private: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  loopback: 'loopback',
  linkLocal: 'link_local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  carrierGradeNat: 'cgnat',
};

/** What ipaddr.js does not single out, checked first: cloud metadata addresses, documentation prefixes, NAT64. */
let ownRanges: Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number][]> | undefined;
const ranges = () =>
  (ownRanges ??= {
    metadata: [
      '169.254.169.254/32', // AWS / GCP / Azure / OCI instance metadata
      '169.254.170.2/32', // AWS ECS task metadata and credentials
      '100.100.100.200/32', // Alibaba Cloud metadata
      '192.0.0.192/32', // Oracle Cloud (legacy) metadata
      'fd00:ec2::254/128', // AWS instance metadata over IPv6
    ].map((cidr) => ipaddr.parseCIDR(cidr)),
    documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'].map((cidr) => ipaddr.parseCIDR(cidr)),
    nat64: [ipaddr.parseCIDR('64:ff9b::/96')], // the well-known NAT64 prefix: the IPv4 address in the low 32 bits decides
  });

/** The IPv4 address in parts `i` and `i + 1` of an IPv6 address. */
const ipv4At = ({ parts }: ipaddr.IPv6, i: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([parts[i]! >> 8, parts[i]! & 0xff, parts[i + 1]! >> 8, parts[i + 1]! & 0xff]);

function classify(address: ipaddr.IPv4 | ipaddr.IPv6): AddressCategory {
  const own = ipaddr.subnetMatch(address, ranges(), 'none');
  if (own === 'metadata' || own === 'documentation') return own;
  if (address.kind() === 'ipv4') return CATEGORY_OF_RANGE[address.range()] ?? 'reserved';
  const v6 = address as ipaddr.IPv6;
  const range: string = v6.range();
  // IPv4-mapped, NAT64 and 6to4 (bits 16..47) addresses take the category of the IPv4 address they carry.
  if (range === 'ipv4Mapped' || own === 'nat64') return classify(ipv4At(v6, 6));
  if (range === '6to4') return classify(ipv4At(v6, 1));
  // Unicast outside 2000::/3 (IPv4-compatible, unassigned) is not public.
  if (range === 'unicast') return v6.parts[0]! >> 13 === 1 ? 'public' : 'reserved';
  return CATEGORY_OF_RANGE[range] ?? 'reserved';
}

const stripBrackets = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * The category of an IP address (IPv4 dotted quad or IPv6, brackets and `%zone` tolerated). IPv4-mapped, NAT64 and
 * 6to4 IPv6 addresses take the category of the IPv4 address they embed. Something that is not an IP address is
 * `reserved` (so refused), never `public`.
 */
export function classifyAddress(ip: string): AddressCategory {
  const host = stripBrackets(ip.trim()).replace(/%.*$/, ''); // a link-local address's zone does not change its category
  // Only the strict forms `net.isIP` accepts (no `127.1`, `0x7f.0.0.1` or leading zeros, which ipaddr.js would read).
  if (isIP(host) === 0) return 'reserved';
  // ipaddr.js reads the deprecated IPv4-compatible spelling `::a.b.c.d` as IPv4-mapped; like `::7f00:1` it is reserved.
  if (/^::\d+\.\d+\.\d+\.\d+$/.test(host)) return 'reserved';
  return classify(ipaddr.parse(host));
}

/** Only public addresses are allowed, plus loopback in local mode. */
const isAllowed = (category: AddressCategory, allowLoopback: boolean): boolean => category === 'public' || (category === 'loopback' && allowLoopback);

const refusedAddress = (address: string, category: AddressCategory, via?: string): string =>
  `refused: ${via === undefined ? address : `${via} resolves to ${address}, which`} is a non-public address (category: ${category})`;

// ---------------------------------------------------------------------------------------------------------------
// Configure-time URL validation
// ---------------------------------------------------------------------------------------------------------------

/** Names that never reach a merchant's public endpoint: internal, mDNS, home-network and unresolvable zones. */
const REFUSED_NAME_SUFFIXES = ['internal', 'local', 'localdomain', 'home.arpa', 'invalid'];

const isLoopbackName = (name: string): boolean => name === 'localhost' || name.endsWith('.localhost');

/**
 * Static checks on a webhook URL at configure time (no DNS: call `resolveAndCheck(url.hostname, …)` afterwards to
 * refuse a host name that resolves to a non-public address). `https:` only; `http:` only when `allowLoopbackHttp`
 * (local mode) and the host is loopback (`localhost`, `127.x`, `[::1]`). No credentials, at most 2048 characters, no
 * IP literal outside the public ranges, no `localhost` / `*.internal` / single-label names.
 */
export function validateWebhookUrl(raw: string, options: { allowLoopbackHttp: boolean }): UrlCheck {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'url is required' };
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not a valid absolute URL' };
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `url scheme ${url.protocol} is not allowed: use https` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'url must not contain credentials (user:password@)' };
  }

  const host = stripBrackets(url.hostname);
  if (host === '') return { ok: false, reason: 'url has no host' };
  let loopback: boolean;
  if (isIP(host) !== 0) {
    const category = classifyAddress(host);
    loopback = category === 'loopback';
    if (!isAllowed(category, options.allowLoopbackHttp)) return { ok: false, reason: refusedAddress(host, category) };
  } else {
    const name = host.replace(/\.+$/, '');
    loopback = isLoopbackName(name);
    if (loopback && !options.allowLoopbackHttp) {
      return { ok: false, reason: `refused: ${host} is a loopback host name (category: loopback)` };
    }
    if (!loopback) {
      if (!name.includes('.')) {
        return { ok: false, reason: `refused: ${host} is a single-label host name; use a public, fully qualified name` };
      }
      const suffix = REFUSED_NAME_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
      if (suffix !== undefined) {
        return { ok: false, reason: `refused: ${host} is an internal host name (.${suffix}); use a public host` };
      }
    }
  }

  if (url.protocol === 'http:' && !(loopback && options.allowLoopbackHttp)) {
    return { ok: false, reason: 'url must use https (http is allowed only for loopback in local mode)' };
  }
  return { ok: true, url };
}

// ---------------------------------------------------------------------------------------------------------------
// Resolution-time check
// ---------------------------------------------------------------------------------------------------------------

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true });

/**
 * Resolves every address of `hostname` and refuses when ANY of them is not public (loopback allowed only with
 * `allowLoopback`): otherwise an attacker could publish one public and one internal address. Returns the first
 * address, which the caller must connect to (pinning, against DNS rebinding). An IP literal (brackets tolerated) is
 * checked directly without DNS. Never throws: DNS failures come back as `{ ok: false }`.
 */
export async function resolveAndCheck(hostname: string, options: { allowLoopback: boolean; lookup?: HostLookup }): Promise<AddressCheck> {
  const host = stripBrackets(hostname);
  if (host === '') return { ok: false, reason: 'no host to resolve' };
  const literal = isIP(host);
  if (literal !== 0) {
    const category = classifyAddress(host);
    if (!isAllowed(category, options.allowLoopback)) return { ok: false, reason: refusedAddress(host, category) };
    return { ok: true, address: host, family: literal === 4 ? 4 : 6 };
  }

  let answers: { address: string; family: number }[];
  try {
    answers = await (options.lookup ?? systemLookup)(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    return { ok: false, reason: `DNS lookup failed for ${host}${code === undefined ? '' : ` (${code})`}` };
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    return { ok: false, reason: `DNS lookup for ${host} returned no address` };
  }
  for (const { address } of answers) {
    const category = classifyAddress(String(address));
    if (!isAllowed(category, options.allowLoopback)) {
      return { ok: false, reason: refusedAddress(String(address), category, host) };
    }
  }
  const [first] = answers;
  const address = String(first?.address);
  return { ok: true, address, family: isIP(address) === 6 ? 6 : 4 };
}
