import { followUpModule, sandboxDisputeDesk } from '../providers/index.ts';
import type { DisputeDesk, InboundWebhook, ProviderName, WebhookVerification } from '../providers/types.ts';
import type { ConnectorRecord } from '../store/connectors.ts';
import { accountOf, openedCredentials } from './connectors.ts';

/** An inbound webhook verified with the account's own secret by its provider's follow-up module. */
export async function verifyInboundWebhook(record: ConnectorRecord, request: InboundWebhook): Promise<WebhookVerification> {
  return (await followUpModule(record.provider)).parseWebhook(await openedCredentials(record), request);
}

/** Where a dispute's evidence and acceptance go: the account that holds its payment, or the sandbox. */
export async function disputeDeskFor(
  item: { merchant_id: string; livemode: boolean },
  op: { provider?: string; connector_id?: string },
): Promise<DisputeDesk> {
  if (!op.connector_id) return sandboxDisputeDesk;
  const record = await accountOf(item, op.connector_id);
  return (await followUpModule(op.provider as ProviderName)).disputeDesk(await openedCredentials(record), { id: record.id, mode: record.mode });
}
