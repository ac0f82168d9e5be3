import { migrateModes } from '../shared/store/migrations/modes.ts';

/**
 * `npm run migrate:modes`: moves the test-mode items written before test and live data were separated into their test
 * partitions (see shared/store/migrations/modes.ts). Run once per deployment, with its AWS credentials and
 * `TABLE_NAME` (the stack's `TableName` output) and `APP_SECRET_ARN` set; safe to run again.
 */
const moved = await migrateModes();
process.stdout.write(`Moved ${moved.listed} test-mode list entries and ${moved.connectors} test connector accounts into their test partitions.\n`);
