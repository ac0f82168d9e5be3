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
  ],
} as const;

export type IndexName = (typeof tableDefinition.indexes)[number]['name'];

/**
 * The card vault's own table (shared/store/vault.ts): cards and, for at most an hour, CVCs, sealed with the AWS
 * Encryption SDK. No index, no stream: nothing lists cards, and nothing about them leaves the table.
 */
export const vaultTableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
} as const;
