/** The single table's shape. CDK (`infra/`) and the local runtime (`infra/local/`) both build the table from this. */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  /** the table's stream carries each new item (events reach the `events` queue through it: shared/events/stream.ts) */
  streamView: 'NEW_IMAGE',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    /** sparse: only audit entries carry its keys (the log by action, keys.ts) */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];

/**
 * The card vault's own tables (shared/store/vault.ts), sealed with the AWS Encryption SDK. No index, no stream:
 * nothing lists cards, and nothing about them leaves the tables. Cards are kept with point-in-time recovery; CVCs, for
 * at most an hour (TTL), in a table of their own without it, so no backup holds a CVC (`pointInTimeRecovery`).
 */
export const vaultTableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  pointInTimeRecovery: true,
} as const;

export const cvcTableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  pointInTimeRecovery: false,
} as const;
