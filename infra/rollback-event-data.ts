import { unpackEventData } from '../shared/store/migrations/event-data.ts';

/**
 * `npm run rollback:event-data`: after rolling back to a version from before events' payloads were packed, rewrites
 * them as that version reads them (see shared/store/migrations/event-data.ts). Run with the deployment's AWS
 * credentials, `TABLE_NAME` (the stack's `TableName` output) and `APP_SECRET_ARN` set.
 */
const rewritten = await unpackEventData();
process.stdout.write(`Rewrote the payload of ${rewritten} event(s) as versions before packed payloads read it.\n`);
