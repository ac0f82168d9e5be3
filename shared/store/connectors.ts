import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Transition } from '../model/state-machines.ts';
import { PROVIDERS } from '../providers/types.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit, type Update } from './commit.ts';
import { recordReader, StringMap } from './item-schemas.ts';
import { connectorKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { countDown, putWithinMerchantCap } from './merchants.ts';
import { listPage, merchantSet, merchantSetItems, type Page, type PageQuery } from './pagination.ts';
import { copiesOf } from './routing-copies.ts';

/**
 * A merchant's provider account: its credentials only sealed (shared/sealing.ts), bound to this connector. A deleted
 * connector is `deleted`, not gone: the API no longer shows or routes to it, but the payments it authorized are still
 * captured, voided and refunded there.
 */
const ConnectorItem = v.object({
  id: v.string(),
  merchant_id: v.string(),
  provider: v.picklist(PROVIDERS),
  mode: v.picklist(['test', 'live']),
  label: v.nullable(v.string()),
  status: v.picklist(['active', 'disabled', 'deleted']),
  credentials_sealed: v.string(),
  credentials_hint: v.string(),
  /** the account's card price (routing reads it, so its copies carry it) */
  fees: v.object({ percent: v.number(), fixed: v.number() }),
  created_at: v.string(),
  updated_at: v.string(),
  /** only on the item, never on its routing copies (routing does not read it), and not stored when empty */
  metadata: v.optional(StringMap),
});
export type ConnectorRecord = v.InferOutput<typeof ConnectorItem>;
export type ConnectorChanges = Partial<
  Pick<ConnectorRecord, 'label' | 'credentials_sealed' | 'credentials_hint' | 'fees' | 'updated_at' | 'metadata'>
>;

/** A connector as its routing copies hold it: without its metadata, so that routing reads no more than it did. */
const routingBody = <T extends { metadata?: unknown }>({ metadata: _metadata, ...item }: T): Omit<T, 'metadata'> => item;
/** An empty metadata is not stored. */
const storedMetadata = (metadata: Record<string, string> | undefined) => (metadata && Object.keys(metadata).length > 0 ? metadata : undefined);
/** How a change goes along CONNECTOR: with a transition of its status, or in the states its fields alone may change in. */
export type ConnectorStep = { transition: Transition } | { inStates: readonly string[] };

export const connectorOf = recordReader('connector', ConnectorItem);

/** A connector's owner: its merchant in the connector's mode. */
export const ownerOfConnector = (c: Pick<ConnectorRecord, 'merchant_id' | 'mode'>): Owner => ({
  merchant_id: c.merchant_id,
  livemode: c.mode === 'live',
});
const modeOf = (owner: Owner) => (owner.livemode ? 'live' : 'test');
const connectorTarget = (owner: Owner, id: string) => ({
  entity: 'connector' as const,
  id,
  owner: { merchant_id: owner.merchant_id, livemode: owner.livemode },
});

/**
 * A change of the owner's connector (of the owner's mode, along `step`) and the same change of its routing copies
 * (without `itemOnly`, which routing never reads).
 */
function withCopies(owner: Owner, id: string, step: ConnectorStep, set: Record<string, unknown>, itemOnly: Partial<Update> = {}): Update[] {
  const target = connectorTarget(owner, id);
  return [
    { update: target, ...step, expect: { mode: modeOf(owner) }, set: { ...set, ...itemOnly.set }, unset: itemOnly.unset },
    ...copiesOf(target).map((copy): Update => ({ update: copy, ...step, set })),
  ];
}

/** A connector the API shows: not deleted. */
export type ShownConnector = ConnectorRecord & { status: 'active' | 'disabled' };
const isShown = (c: ConnectorRecord | undefined): c is ShownConnector => c !== undefined && c.status !== 'deleted';

/**
 * Writes a new connector, with its routing copies, unless the merchant has `max` (`connector_count` on its profile); a
 * retried create finds its first.
 */
export async function putConnector(connector: ConnectorRecord, max: number): Promise<Created<ConnectorRecord> | undefined> {
  const owner = ownerOfConnector(connector);
  const target = connectorTarget(owner, connector.id);
  const item = { ...routingBody(connector), ...(storedMetadata(connector.metadata) ? { metadata: connector.metadata } : {}) };
  const put = await putWithinMerchantCap(
    { owner, count: 'connector_count', max },
    { create: target, item },
    item,
    connectorOf,
    copiesOf(target).map((copy) => ({ create: copy, item: routingBody(connector) })),
  );
  return put && { created: put.created, record: connectorOf(put.record) };
}

/** The connector an inbound webhook names, by its id alone (any merchant, any status), read consistently by its key. */
export async function findConnectorById(connectorId: string): Promise<ConnectorRecord | undefined> {
  const { gsi2pk } = connectorKeys.byId(connectorId);
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi2pk },
      ProjectionExpression: 'merchant_id, #mode',
      ExpressionAttributeNames: { '#mode': 'mode' },
    }),
  );
  const found = out.Items?.[0];
  if (typeof found?.merchant_id !== 'string' || typeof found.mode !== 'string') return undefined;
  const owner = ownerOfConnector({ merchant_id: found.merchant_id, mode: found.mode === 'live' ? 'live' : 'test' });
  const item = await db.send(new GetCommand({ TableName: TABLE, Key: connectorKeys.item(owner, connectorId), ConsistentRead: true }));
  return item.Item && connectorOf(item.Item);
}

/** Every connector of the owner (a small set), newest first. `consistent` for the API's own reads. */
export async function listConnectors(owner: Owner, options: { consistent: boolean }): Promise<ConnectorRecord[]> {
  return (await merchantSetItems(connectorKeys, owner, options)).map(connectorOf);
}

/** The owner's connector by id, read consistently; undefined when there is none. */
export async function getConnector(owner: Owner, id: string): Promise<ConnectorRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: connectorKeys.item(owner, id), ConsistentRead: true }));
  const record = out.Item && connectorOf(out.Item);
  return record?.mode === modeOf(owner) ? record : undefined;
}

/** The owner's connector as the API shows it: not a deleted one. */
export async function getShownConnector(owner: Owner, id: string): Promise<ShownConnector | undefined> {
  const record = await getConnector(owner, id);
  return isShown(record) ? record : undefined;
}

/** A page of the owner's connectors, newest first, read consistently. */
export async function connectorPage(owner: Owner, page: PageQuery): Promise<Page<ShownConnector>> {
  const spec = {
    ...merchantSet(connectorKeys, owner, { consistent: true }),
    filter: {
      FilterExpression: '#status <> :deleted',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':deleted': 'deleted' },
    },
  };
  const result = await listPage(spec, page);
  return { data: result.data.map(connectorOf).filter(isShown), has_more: result.has_more };
}

/**
 * Applies the changes (along `step`) to the owner's connector and its routing copies; undefined when there is none
 * in the step's states (the key holds the merchant and mode).
 */
export async function updateConnector(owner: Owner, id: string, changes: ConnectorChanges, step: ConnectorStep): Promise<ShownConnector | undefined> {
  const { metadata, ...shared } = changes;
  const set = Object.fromEntries(Object.entries(shared).filter(([, value]) => value !== undefined));
  // metadata changes the item alone: set when not empty, removed when emptied
  const itemOnly = metadata === undefined ? {} : storedMetadata(metadata) ? { set: { metadata } } : { unset: ['metadata'] };
  const updated = await commit({ writes: withCopies(owner, id, step, set, itemOnly) });
  return updated === 'committed' ? getShownConnector(owner, id) : undefined;
}

/**
 * `remove` (CONNECTOR's delete): marks the owner's connector (and its routing copies) deleted and frees its place
 * under the cap; false when there is none to delete.
 */
export async function deleteConnector(owner: Owner, id: string, at: string, remove: Transition): Promise<boolean> {
  const deleted = await commit({
    writes: [...withCopies(owner, id, { transition: remove }, { updated_at: at }), countDown(owner, 'connector_count')],
  });
  return deleted === 'committed';
}
