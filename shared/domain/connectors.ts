import * as v from 'valibot';
import { type Connector, FEES, type Mode, type ProviderName, providerModule, sandboxFor } from '../providers/index.ts';
import { sealer } from '../sealing.ts';
import type { CreateConnectorBody, UpdateConnectorBody } from '../schemas/connectors.ts';
import * as connectorsStore from '../store/connectors.ts';
import type { ConnectorRecord, ShownConnector } from '../store/connectors.ts';
import type { PageQuery } from '../store/pagination.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { isoNow } from '../model/clock.ts';
import { isUnknownKey, issueReason } from '../schemas/issue-reason.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { CONNECTOR, transition } from '../model/state-machines.ts';
import { modeOf, type RouteTarget } from './route-targets.ts';
import type { Owner } from '../model/targets.ts';
import { annotate } from '../tracer.ts';

/**
 * Connector accounts: the merchant's own provider accounts. Credentials are checked by the provider's module (their
 * shape, their mode, then one read-only call to the provider), sealed to the connector before they are stored, and
 * opened only in memory to build the connector that calls the provider. No answer, log line or message carries them.
 */
export const MAX_CONNECTORS_PER_MERCHANT = 20;
const VERIFY_TIMEOUT_MS = 8_000;

const credentialsSealer = sealer('connector-credentials/v1', 'credentials');

const view = (c: ShownConnector, baseUrl: string) => ({
  id: c.id,
  object: 'connector' as const,
  provider: c.provider,
  mode: c.mode,
  label: c.label,
  status: c.status,
  credentials_hint: c.credentials_hint,
  fees: c.fees,
  webhook_url: `${baseUrl}/api/connectors/${c.id}/webhooks`,
  created_at: c.created_at,
  livemode: c.mode === 'live',
  metadata: c.metadata ?? {},
});

/** The credentials as the provider's module reads them: a 400 naming the field otherwise, then verified at the provider. */
async function checkedCredentials(provider: ProviderName, raw: unknown, mode: Mode) {
  const module = await providerModule(provider);
  const parsed = v.safeParse(module.credentialsSchema, raw);
  // A credential of the wrong shape is a bad field like any other (docs/api.md "Answers and errors"); one the provider
  // refuses is connector_verification_failed (below).
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = v.getDotPath(issue);
    const param = path ? `credentials.${path}` : 'credentials';
    const code = isUnknownKey(issue) ? 'parameter_unknown' : issue.received === 'undefined' ? 'parameter_missing' : 'parameter_invalid';
    throw new BadRequest(code, param, issueReason(module.credentialsSchema, issue, param));
  }
  const credentials = parsed.output;
  const mismatch = module.modeMismatch(credentials, mode);
  if (mismatch) throw new BadRequest('connector_verification_failed', 'credentials', mismatch);
  const verified = await module.verify(credentials, mode, AbortSignal.timeout(VERIFY_TIMEOUT_MS)).catch((error: unknown) => ({
    ok: false as const,
    reason: `${provider} could not be reached (${(error as Error).name})`,
  }));
  if (!verified.ok) throw new BadRequest('connector_verification_failed', 'credentials', `${provider} refused the credentials: ${verified.reason}`);
  return {
    sealedFor: (merchantId: string, id: string) => credentialsSealer.seal(JSON.stringify(credentials), merchantId, id),
    hint: module.hint(credentials),
  };
}

export async function createConnector(
  merchant: Merchant,
  input: v.InferOutput<typeof CreateConnectorBody>,
  baseUrl: string,
  origin: Origin = freshOrigin(),
) {
  const mode = modeOf(merchant);
  const checked = await checkedCredentials(input.provider, input.credentials, mode);
  const id = idFor('connector', origin);
  const now = new Date(origin.at).toISOString();
  const record: ConnectorRecord = {
    id,
    merchant_id: merchant.id,
    provider: input.provider,
    mode,
    label: input.label ?? null,
    status: 'active',
    credentials_sealed: await checked.sealedFor(merchant.id, id),
    credentials_hint: checked.hint,
    fees: input.fees ?? FEES[input.provider],
    created_at: now,
    updated_at: now,
    metadata: input.metadata ?? {},
  };
  const put = await connectorsStore.putConnector(record, MAX_CONNECTORS_PER_MERCHANT);
  if (!put) throw new BadRequest('too_many_connectors', 'provider', `a merchant may connect at most ${MAX_CONNECTORS_PER_MERCHANT} accounts`);
  // a retried create answers what its first run stored, unless that connector was deleted since
  if (put.record.status === 'deleted') throw new NotFound();
  return view({ ...put.record, status: put.record.status }, baseUrl);
}

export async function listConnectorsPage(merchant: Merchant, page: PageQuery, baseUrl: string) {
  const result = await connectorsStore.connectorPage(ownerOf(merchant), page);
  return { object: 'list' as const, data: result.data.map((c) => view(c, baseUrl)), has_more: result.has_more };
}

export async function getConnector(merchant: Merchant, id: string, baseUrl: string) {
  const record = await connectorsStore.getShownConnector(ownerOf(merchant), id);
  if (!record) throw new NotFound();
  return view(record, baseUrl);
}

export async function updateConnector(merchant: Merchant, id: string, input: v.InferOutput<typeof UpdateConnectorBody>, baseUrl: string) {
  const mode = modeOf(merchant);
  const existing = await connectorsStore.getShownConnector(ownerOf(merchant), id);
  if (!existing) throw new NotFound();
  const checked = input.credentials ? await checkedCredentials(existing.provider, input.credentials, mode) : undefined;
  const step = input.status
    ? { transition: transition('connector', CONNECTOR, input.status === 'active' ? 'enable' : 'disable', existing.status) }
    : // fields alone change in any state the connector may still be deleted from
      { inStates: CONNECTOR.delete.from };
  const changes = {
    label: input.label,
    credentials_sealed: checked && (await checked.sealedFor(merchant.id, id)),
    credentials_hint: checked?.hint,
    fees: input.fees,
    metadata: input.metadata,
    updated_at: isoNow(),
  };
  const updated = await connectorsStore.updateConnector(ownerOf(merchant), id, changes, step);
  if (!updated) throw new NotFound();
  return view(updated, baseUrl);
}

/**
 * Deletes the account for the API and routing. Its record stays (deleted): payments it authorized are still
 * captured, voided and refunded through it, and the reconciler can still finish their operations.
 */
export async function deleteConnector(merchant: Merchant, id: string) {
  if (!(await connectorsStore.deleteConnector(ownerOf(merchant), id, isoNow(), CONNECTOR.delete))) throw new NotFound();
  return { id, object: 'connector' as const, deleted: true as const };
}

/** Live connectors built from opened credentials, per connector version (an update makes a new one). */
const built = new Map<string, Promise<Connector>>();

/** The connector that calls the provider for this account, its credentials opened in memory only. */
export function liveConnectorFor(record: ConnectorRecord): Promise<Connector> {
  const cacheKey = `${record.id}@${record.updated_at}`;
  let connector = built.get(cacheKey);
  if (!connector) {
    connector = credentialsSealer
      .open(record.credentials_sealed, record.merchant_id, record.id)
      .then(async (opened) => (await providerModule(record.provider)).connect(JSON.parse(opened), { id: record.id, mode: record.mode }));
    built.set(cacheKey, connector);
  }
  return connector;
}

/**
 * The connector an operation calls: the payment's connector account (whatever its status now: an authorization it
 * holds is still captured, voided or refunded there), or the provider's sandbox for a payment made without one.
 */
export async function connectorForOperation(payment: Owner, op: { provider?: string; connector_id?: string }): Promise<Connector> {
  annotate({ provider: op.provider });
  if (!op.connector_id) return sandboxFor(op.provider as ProviderName);
  return liveConnectorFor(await accountOf(payment, op.connector_id));
}

/**
 * The connector for a route target: the account routing just listed (no second read), or, for a target named only by
 * its id (a card on file), the account read by id; the sandbox for none.
 */
export function connectorForTarget(owner: Owner, target: RouteTarget): Promise<Connector> {
  annotate({ provider: target.provider });
  return target.account
    ? liveConnectorFor(target.account)
    : connectorForOperation(owner, { provider: target.provider, connector_id: target.connectorId ?? undefined });
}

/** The account's credentials, opened in memory only (to build what calls its provider; never logged or returned). */
export const openedCredentials = async (record: ConnectorRecord): Promise<Record<string, unknown>> =>
  JSON.parse(await credentialsSealer.open(record.credentials_sealed, record.merchant_id, record.id)) as Record<string, unknown>;

/** The owner's connector account an operation names (whatever its status now), or an error if it is gone. */
export async function accountOf(owner: Owner, connectorId: string): Promise<ConnectorRecord> {
  const record = await connectorsStore.getConnector(owner, connectorId);
  if (!record) throw new Error(`Connector ${connectorId} no longer exists`);
  return record;
}
