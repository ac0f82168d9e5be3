import { rebuildAllRoutingCopies } from '../shared/store/migrations/routing-copies.ts';

/**
 * `npm run rebuild:routing-copies [-- mer_… …]`: builds the routing copies of every owner (or of the merchants named)
 * again from their connector accounts and rules (see shared/store/migrations/routing-copies.ts). Run with the
 * deployment's AWS credentials and `TABLE_NAME` (the stack's `TableName` output) and `APP_SECRET_ARN` set.
 */
const { owners } = await rebuildAllRoutingCopies(process.argv.slice(2));
process.stdout.write(`Rebuilt the routing copies of ${owners} owner(s).\n`);
