import { logger } from '../logger.ts';
import type { InboundWebhook, ProviderCardUpdate } from '../providers/types.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import * as connectors from '../store/connectors.ts';
import * as inbound from '../store/inbound.ts';
import * as payments from '../store/payments.ts';
import { clock } from '../model/clock.ts';
import { verifyInboundWebhook } from './follow-up.ts';
import { BadRequest, NotFound } from '../model/errors.ts';
import { applyProviderChange } from './provider-changes.ts';
import { updateSavedCard } from './card-updates.ts';

/**
 * A provider's notifications for one connector account (`POST /api/connectors/:id/webhooks`, public): verified with
 * the account's own secret by the provider's SDK, or refused (400) having changed nothing. Each notification about
 * one of our payments is applied with a record of its event id in the same commit, so a second delivery changes
 * nothing; one about anything else is acknowledged and ignored. A failure midway answers 500: the provider sends
 * it again and what was applied is not applied twice.
 */
export async function receiveProviderWebhook(connectorId: string, request: InboundWebhook) {
  const connector = await connectors.findConnectorById(connectorId);
  if (!connector) throw new NotFound();
  const verified = await verifyInboundWebhook(connector, request);
  if (!verified.ok) throw new BadRequest('webhook_verification_failed', undefined, verified.reason);
  let applied = 0;
  for (const notification of verified.notifications) {
    if (notification.cardUpdate && (await applyCardUpdate(connector, notification.cardUpdate))) applied++;
    const change = notification.change;
    const ours = change && (await inbound.paymentIdByReference(connector.id, change.paymentReference));
    const payment = ours && (await payments.getStoredPayment(connectors.ownerOfConnector(connector), ours.paymentId));
    if (!change || !payment) continue;
    const seen = inbound.seenWrite(connector.id, notification.eventId, clock.now());
    if (await applyProviderChange(payment, change, { source: 'provider_webhook', reference: notification.eventId, seen })) applied++;
  }
  if (verified.notifications.some((n) => n.payoutReport) && connector.status !== 'deleted') await reconcileOnReport(connector);
  logger.info('Provider notifications received', { connector_id: connector.id, notifications: verified.notifications.length, applied });
  return verified.acknowledgement;
}

/**
 * A payout's report was published: the account is reconciled now (idempotent per payout, so a report announced
 * twice changes nothing). A run that cannot read the provider answers 500, and the provider announces it again.
 * Loaded here only: most notifications are not reports.
 */
async function reconcileOnReport(connector: connectors.ConnectorRecord): Promise<void> {
  const { reconcileAccount } = await import('./reconciliation.ts');
  await reconcileAccount(connector);
}

/**
 * A stored card the account's updater changed: our payment method it was tagged with, if that payment method holds
 * this very token at this account (a tag alone proves nothing), takes the new expiry and last four digits.
 */
async function applyCardUpdate(connector: connectors.ConnectorRecord, update: ProviderCardUpdate): Promise<boolean> {
  const pm = await paymentMethods.getPaymentMethod(connectors.ownerOfConnector(connector), update.paymentMethodId);
  if (pm?.tokens[connector.id]?.token !== update.token) return false;
  const { exp_month, exp_year, last4, brand } = update;
  await updateSavedCard(pm, { exp_month, exp_year, ...(last4 ? { last4 } : {}), ...(brand ? { brand } : {}) });
  return true;
}
