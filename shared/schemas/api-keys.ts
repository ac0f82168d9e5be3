import * as v from 'valibot';
import { MAX_IP_RANGES, parseCidr } from '../model/ip-ranges.ts';
import { GRANTABLE, type Grants, GROUPS, UNGRANTABLE } from '../model/permissions.ts';
import { listQuery, Name } from './common.ts';

const Permissions = v.pipe(
  v.record(v.string(), v.picklist(['read', 'write'])),
  v.check((grants) => Object.keys(grants).every((group) => (GROUPS as readonly string[]).includes(group)), `groups are ${GRANTABLE.join(', ')}`),
  v.check(
    (grants) => !Object.keys(grants).some((group) => (UNGRANTABLE as readonly string[]).includes(group)),
    `${UNGRANTABLE.join(', ')} cannot be granted to a restricted key`,
  ),
  v.check((grants) => Object.keys(grants).length > 0, 'a restricted key names at least one group'),
  v.transform((grants) => grants as Grants),
  v.description(`a restricted key's groups, each \`read\` or \`write\` (write includes read): ${GRANTABLE.join(', ')}`),
  v.examples([{ payments: 'write', customers: 'read' }]),
);

const AllowedIps = v.pipe(
  v.array(
    v.pipe(
      v.string(),
      v.trim(),
      v.check((cidr) => parseCidr(cidr) !== undefined, 'each entry is an IPv4 or IPv6 CIDR (203.0.113.0/24, 2001:db8::/32) or address'),
    ),
  ),
  v.minLength(1, 'at least one CIDR (leave allowed_ips out to allow any address)'),
  v.maxLength(MAX_IP_RANGES, `at most ${MAX_IP_RANGES} CIDRs`),
  v.description('the addresses the key may be used from (IPv4 or IPv6 CIDRs); another address is refused with 403 ip_not_allowed'),
  v.examples([['203.0.113.0/24']]),
);

export const CreateApiKeyBody = v.object({
  name: v.pipe(Name, v.examples(['Checkout server'])),
  mode: v.pipe(
    v.optional(v.picklist(['live', 'test'])),
    v.description("default: the mode the request acts in (a key's own; a session's test unless Livemode: true)"),
  ),
  type: v.pipe(
    v.optional(v.picklist(['secret', 'publishable', 'restricted']), 'secret'),
    v.description(
      "`publishable` (`pk_…`): public, for shoppers' browsers; it may only create payment methods and load the hosted pages. " +
        '`restricted` (`rk_…`): only the groups `permissions` names',
    ),
  ),
  permissions: v.optional(Permissions),
  expires_at: v.pipe(
    v.optional(v.pipe(v.string(), v.isoTimestamp('an ISO 8601 timestamp'))),
    v.description('when the key stops working (then 401 `this key expired on …`); a future time'),
    v.examples(['2027-06-30T00:00:00Z']),
  ),
  allowed_ips: v.optional(AllowedIps),
});

export const RollApiKeyBody = v.object({
  expires_in_hours: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(0),
    v.maxValue(168),
    v.description('how long the old key keeps working beside its successor, 0 to 168 hours (0: it stops at once)'),
    v.examples([24]),
  ),
});

export const ListApiKeysQuery = listQuery('apiKey');
