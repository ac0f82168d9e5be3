/** Every response schema; the OpenAPI document names its components after these exports. */
export * from './accounts.ts';
export * from './billing.ts';
export * from './errors.ts';
export * from './payments.ts';
export * from './reports.ts';
export * from './webhooks.ts';
export * from './connectors.ts';
export * from './disputes.ts';
export * from './events.ts';
export * from './test-clocks.ts';
export * from './team.ts';
export * from './audit-log.ts';
export * from './payment-links.ts';
