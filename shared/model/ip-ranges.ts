import { BlockList, isIP } from 'node:net';

/** At most this many ranges on a key (they are read on every request the key makes). */
export const MAX_IP_RANGES = 20;

/**
 * A CIDR (`203.0.113.0/24`, `2001:db8::/32`) or a single address, as `{address, prefix, family}`; undefined when it is
 * neither (a prefix longer than the family's, a malformed address).
 */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { address, prefix: Number(prefixText), family };
}

/** Whether `ip` (the request's source address; an IPv4-mapped IPv6 one as its IPv4) lies in one of `cidrs`. */
export function inRanges(ip: string, cidrs: readonly string[]): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const address = mapped ?? ip;
  const version = isIP(address);
  if (version === 0) return false;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const range = parseCidr(cidr);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
