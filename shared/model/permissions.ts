/**
 * Who may do what: permission groups, the roles of a merchant's team and what each credential is granted, as data
 * (docs/api.md "Team, roles and restricted keys"). Each catalog entry declares the permission it needs; one step of the
 * HTTP chain compares it with the credential's grants.
 */
export const GROUPS = [
  'payments',
  'customers',
  'billing',
  'disputes',
  'routing',
  'connectors',
  'webhooks',
  'finance',
  'analytics',
  'test_clocks',
  'settings',
  'api_keys',
  'team',
  'audit_log',
] as const;
export type Group = (typeof GROUPS)[number];

/** `write` includes `read`. */
export type Level = 'read' | 'write';
/** What an endpoint needs, e.g. `payments:write`. */
export type Permission = `${Group}:${Level}`;
/** What a credential holds: per group, the highest level it may use (a group it lacks is absent). */
export type Grants = Partial<Record<Group, Level>>;

export const ROLES = ['owner', 'admin', 'developer', 'analyst', 'support', 'view_only'] as const;
export type Role = (typeof ROLES)[number];

const every = (level: Level, except: readonly Group[] = []): Grants =>
  Object.fromEntries(GROUPS.filter((g) => !except.includes(g)).map((g) => [g, level]));
const of = (level: Level, groups: readonly Group[]): Grants => Object.fromEntries(groups.map((g) => [g, level]));

/** The role table. An admin writes every group too, but only an owner makes or unmakes owners (the team's rule). */
export const ROLE_GRANTS: Readonly<Record<Role, Grants>> = {
  owner: every('write'),
  admin: every('write'),
  developer: {
    ...of('read', ['payments', 'customers', 'billing', 'disputes', 'finance', 'analytics']),
    ...of('write', ['api_keys', 'webhooks', 'routing', 'connectors', 'test_clocks', 'settings']),
  },
  analyst: of('read', ['payments', 'customers', 'billing', 'disputes', 'finance', 'analytics', 'routing', 'connectors']),
  // support writes payments but does not create them (the permission step's one exception, by operation)
  support: { ...of('write', ['payments', 'customers', 'billing', 'disputes']), ...of('read', ['routing']) },
  view_only: every('read', ['api_keys', 'team', 'audit_log']),
};

/**
 * Operations a role may not use although its grants cover them, by route (`METHOD /path` as the catalog names it): the
 * one exception to the group table is that support writes payments (refunds, captures, voids) but creates none.
 */
export const ROLE_EXCLUSIONS: Readonly<Partial<Record<Role, readonly string[]>>> = {
  support: ['POST /api/payments/create'],
};

/** A secret key (`sk_`) holds every group but the team's and the audit log's. */
export const SECRET_KEY_GRANTS: Grants = every('write', ['team', 'audit_log']);
/** Groups a restricted key (`rk_`) can never be granted. */
export const UNGRANTABLE: readonly Group[] = ['team', 'audit_log', 'api_keys'];
/** The groups a restricted key may name. */
export const GRANTABLE: readonly Group[] = GROUPS.filter((g) => !UNGRANTABLE.includes(g));

export const permissionParts = (permission: Permission): { group: Group; level: Level } => {
  const [group, level] = permission.split(':') as [Group, Level];
  return { group, level };
};

/** Whether `grants` allow `permission` (`write` includes `read`). */
export function allows(grants: Grants, permission: Permission): boolean {
  const { group, level } = permissionParts(permission);
  const held = grants[group];
  return held === 'write' || (held === 'read' && level === 'read');
}
