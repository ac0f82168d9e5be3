import { foldCounterShards } from '../shared/store/migrations/counter-shards.ts';

/**
 * `npm run migrate:counter-shards`: folds the counter cells written over ten shards before they followed
 * PAYMENTS_PER_MINUTE, and records the shards reads cover (see shared/store/migrations/counter-shards.ts). Run with
 * the deployment's AWS credentials, `TABLE_NAME` (the stack's `TableName` output), `APP_SECRET_ARN` set, and the
 * deployment's PAYMENTS_PER_MINUTE if it was raised.
 */
const { folded, recorded, found } = await foldCounterShards();
process.stdout.write(
  `Moved the amounts of ${folded} counter cell(s) into the configured shards; ` +
    (recorded
      ? `the table now records ${recorded}, and reads cover only those.\n`
      : `the table already recorded ${found}, and reads cover that many.\n`),
);
