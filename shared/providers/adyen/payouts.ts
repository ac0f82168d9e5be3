/**
 * Adyen's payouts: the Settlement details report of each settlement batch, downloaded from the Customer Area's report
 * path with the account's API key (X-API-Key, as a web service user with the Merchant Report role may). Batches are
 * numbered 1, 2, … per merchant account and a report is named by its batch, so a run reads the batches after the
 * cursor (the last batch read) until one is not published yet. REPORT_AVAILABLE only starts a run: the key is never
 * sent to a URL a notification names.
 */
import { config } from '../../config.ts';
import { logger } from '../../logger.ts';
import { providerDeadlines } from '../deadlines.ts';
import { within } from '../transport.ts';
import type { Mode, ProviderPayout, ProviderPayouts } from '../types.ts';
import type { AdyenCredentials } from './credentials.ts';
import { settlementReportName } from './references.ts';
import { payoutsOfReport } from './settlement-report.ts';

/** More batches than this in one run are read by the next run. */
const MAX_BATCHES = 50;

/** Where the merchant account's reports are: the Customer Area of the mode, or `ADYEN_CHECKOUT_BASE_URL`'s origin (a fake). */
export function reportsBaseUrl(credentials: AdyenCredentials, mode: Mode): string {
  const override = config.ADYEN_CHECKOUT_BASE_URL;
  const origin = override ? new URL(override).origin : `https://${mode === 'test' ? 'ca-test' : 'ca-live'}.adyen.com`;
  return `${origin}/reports/download/MerchantAccount/${encodeURIComponent(credentials.merchant_account)}/`;
}

/** The report's text; null when it is not published (404); undefined when Adyen could not be read. */
async function download(credentials: AdyenCredentials, mode: Mode, name: string, signal?: AbortSignal): Promise<string | null | undefined> {
  try {
    const response = await fetch(`${reportsBaseUrl(credentials, mode)}${name}`, {
      headers: { 'X-API-Key': credentials.api_key },
      redirect: 'error',
      signal: within(providerDeadlines.operationMs, signal),
    });
    if (response.status === 404) return null;
    if (!response.ok) return undefined;
    return await response.text();
  } catch {
    return undefined;
  }
}

/** The batch's payouts, or undefined (logged) when the report is not one this reads: the run is made again later. */
function readReport(report: string, batch: number): ProviderPayout[] | undefined {
  try {
    return payoutsOfReport(report, batch);
  } catch (error) {
    logger.error('Adyen settlement report unreadable', { batch, error: (error as Error).message });
    return undefined;
  }
}

export const adyenPayouts: ProviderPayouts<AdyenCredentials> = {
  async payoutsSince(credentials, from, signal) {
    let batch = Number(from.cursor ?? 0);
    const payouts: ProviderPayout[] = [];
    for (let n = 0; n < MAX_BATCHES; n++) {
      const report = await download(credentials, from.mode, settlementReportName(batch + 1), signal);
      if (report === undefined) return undefined;
      if (report === null) break;
      batch++;
      const read = readReport(report, batch);
      if (!read) return undefined;
      // a batch closed before the account was connected here is not this service's to reconcile (reports: whole seconds)
      payouts.push(...read.filter((payout) => payout.created >= from.connectedAt.slice(0, 19)));
    }
    return { payouts, cursor: batch > 0 ? String(batch) : from.cursor };
  },
};
