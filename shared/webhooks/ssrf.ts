/**
 * SSRF guard for merchant webhook URLs (DECISIONS.md "Webhooks"): private, loopback, link-local, metadata and other
 * non-public addresses are refused at configure time (`validateWebhookUrl`, plus `resolveAndCheck` on the host) and
 * again at delivery time (`resolveAndCheck`, whose checked address the HTTP client pins the connection to, so a DNS
 * answer that changes between the check and the connect — DNS rebinding — cannot redirect the request).
 *
 * Host parsing is left to WHATWG `new URL()`, which already turns every IPv4 spelling (`2130706433`, `0x7f.1`,
 * `017700000001`, `127.1`, …) into a dotted quad and IPv6 literals into their canonical form; the classification below
 * works on numbers, never on string prefixes.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

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

/** Dotted-quad IPv4 (as `net.isIP` accepts it: four decimal octets, no leading zeros) to a 32-bit number. */
function ipv4ToNumber(ip: string): number | undefined {
  if (isIP(ip) !== 4) return undefined;
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

type V4Rule = readonly [base: number, prefix: number, category: AddressCategory];

const v4 = (cidr: string, category: AddressCategory): V4Rule => {
  const [ip = '', prefix = ''] = cidr.split('/');
  const base = ipv4ToNumber(ip);
  if (base === undefined) throw new Error(`bad IPv4 rule ${cidr}`);
  return [base, Number(prefix), category];
};

/**
 * The rule tables, parsed by the first address checked: parsing runs `net.isIP`, whose first IPv6 call compiles a large
 * regular expression (about 8 ms), which a function that never checks an address (a list, a delete) would otherwise
 * pay at every cold start.
 */
let parsedRules: ReturnType<typeof parseRules> | undefined;
const rules = () => (parsedRules ??= parseRules());

const parseRules = () => ({
  /** First match wins, so the single metadata addresses come before the ranges that contain them. */
  IPV4_RULES: [
    v4('169.254.169.254/32', 'metadata'), // AWS / GCP / Azure / OCI instance metadata
    v4('169.254.170.2/32', 'metadata'), // AWS ECS task metadata and credentials
    v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud metadata
    v4('192.0.0.192/32', 'metadata'), // Oracle Cloud (legacy) metadata
    v4('0.0.0.0/8', 'unspecified'), // "this network"; 0.0.0.0 reaches the local host on Linux
    v4('10.0.0.0/8', 'private'),
    v4('100.64.0.0/10', 'cgnat'),
    v4('127.0.0.0/8', 'loopback'),
    v4('169.254.0.0/16', 'link_local'),
    v4('172.16.0.0/12', 'private'),
    v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
    v4('192.0.2.0/24', 'documentation'), // TEST-NET-1
    v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
    v4('192.168.0.0/16', 'private'),
    v4('198.18.0.0/15', 'reserved'), // benchmarking
    v4('198.51.100.0/24', 'documentation'), // TEST-NET-2
    v4('203.0.113.0/24', 'documentation'), // TEST-NET-3
    v4('224.0.0.0/4', 'multicast'),
    v4('240.0.0.0/4', 'reserved'), // future use, including the broadcast address 255.255.255.255
  ] as readonly V4Rule[],
  /** IPv6 ranges that carry an IPv4 address in their low 32 bits: that IPv4 address decides. */
  V6_EMBEDDING_V4_LOW32: [v6('::ffff:0:0/96'), v6('64:ff9b::/96')], // IPv4-mapped; NAT64 well-known prefix
  V6_6TO4: v6('2002::/16'), // 6to4: the IPv4 address sits in bits 16..47
  IPV6_RULES: [
    [v6('::/128'), 'unspecified'],
    [v6('::1/128'), 'loopback'],
    [v6('fd00:ec2::254/128'), 'metadata'], // AWS instance metadata over IPv6
    [v6('64:ff9b:1::/48'), 'reserved'], // local-use NAT64
    [v6('::/8'), 'reserved'], // IPv4-compatible (deprecated), IPv4-translated, other reserved
    [v6('100::/64'), 'reserved'], // discard-only
    [v6('2001:db8::/32'), 'documentation'],
    [v6('2001::/23'), 'reserved'], // IETF protocol assignments, including Teredo (2001::/32)
    [v6('3fff::/20'), 'documentation'],
    [v6('fc00::/7'), 'private'], // unique local
    [v6('fe80::/10'), 'link_local'],
    [v6('fec0::/10'), 'private'], // deprecated site-local
    [v6('ff00::/8'), 'multicast'],
  ] as readonly (readonly [readonly [bigint, number], AddressCategory])[],
  V6_GLOBAL_UNICAST: v6('2000::/3'),
});

function classifyIPv4(n: number): AddressCategory {
  for (const [base, prefix, category] of rules().IPV4_RULES) {
    const size = 2 ** (32 - prefix);
    if (Math.floor(n / size) === Math.floor(base / size)) return category;
  }
  return 'public';
}

/** An IPv6 literal (optionally with a dotted IPv4 tail and a `%zone`) to a 128-bit number. */
function ipv6ToBigInt(ip: string): bigint | undefined {
  let s = ip;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (isIP(s) !== 6) return undefined;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const n = ipv4ToNumber(tail);
    if (n === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${Math.floor(n / 0x10000).toString(16)}:${(n % 0x10000).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const head = groupsOf(halves[0] ?? '');
  let groups = head;
  if (halves.length === 2) {
    const rest = groupsOf(halves[1] ?? '');
    const fill = 8 - head.length - rest.length;
    if (fill < 0) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const v6 = (cidr: string): readonly [bigint, number] => {
  const [ip = '', prefix = ''] = cidr.split('/');
  const base = ipv6ToBigInt(ip);
  if (base === undefined) throw new Error(`bad IPv6 rule ${cidr}`);
  return [base, Number(prefix)];
};

const inV6 = (value: bigint, [base, prefix]: readonly [bigint, number]): boolean => {
  const shift = BigInt(128 - prefix);
  return value >> shift === base >> shift;
};

function classifyIPv6(n: bigint): AddressCategory {
  const { V6_EMBEDDING_V4_LOW32, V6_6TO4, IPV6_RULES, V6_GLOBAL_UNICAST } = rules();
  if (V6_EMBEDDING_V4_LOW32.some((range) => inV6(n, range))) return classifyIPv4(Number(n & 0xffffffffn));
  if (inV6(n, V6_6TO4)) {
    const embedded = classifyIPv4(Number((n >> 80n) & 0xffffffffn));
    if (embedded !== 'public') return embedded;
  }
  for (const [range, category] of IPV6_RULES) if (inV6(n, range)) return category;
  return inV6(n, V6_GLOBAL_UNICAST) ? 'public' : 'reserved';
}

const stripBrackets = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * The category of an IP address (IPv4 dotted quad or IPv6, brackets and `%zone` tolerated). IPv4-mapped, NAT64 and
 * 6to4 IPv6 addresses take the category of the IPv4 address they embed. Something that is not an IP address is
 * `reserved` (so refused), never `public`.
 */
export function classifyAddress(ip: string): AddressCategory {
  const host = stripBrackets(ip.trim());
  const n4 = ipv4ToNumber(host);
  if (n4 !== undefined) return classifyIPv4(n4);
  const n6 = ipv6ToBigInt(host);
  if (n6 !== undefined) return classifyIPv6(n6);
  return 'reserved';
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
