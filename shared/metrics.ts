import { onFirstUse } from './first-use.ts';

/**
 * The service's business metrics (CloudWatch embedded metric format, through Powertools Metrics). Each metric has one
 * fixed set of dimensions, declared here: the alarms and the dashboard (infra/constructs/observability.ts) build their
 * CloudWatch metrics from this table, so a metric and its alarm cannot disagree on a name or a dimension.
 * Powertools adds the `service` dimension to every set.
 */
export const METRICS_NAMESPACE = 'PaymentOrchestration';

export const BUSINESS_METRICS = {
  /** an authorization attempt at one connector; outcome: approved | declined | unknown | failed */
  Authorizations: ['mode', 'provider', 'outcome'],
  /** a decline, by the provider's normalized decline code */
  Declines: ['mode', 'provider', 'decline_code'],
  /** a payment moved on from this provider to the next connector */
  Failovers: ['mode', 'provider'],
  /** a provider call whose outcome is not known (timeout after sending); operation: authorize | capture | void | refund */
  UnknownOutcomes: ['mode', 'provider', 'operation'],
  /** outcome: succeeded | pending (the provider confirms later) | failed */
  Captures: ['mode', 'provider', 'outcome'],
  /** outcome: succeeded | pending | failed */
  Refunds: ['mode', 'provider', 'outcome'],
  /** status: the dispute's status after the change (needs_response, under_review, won, lost, accepted) */
  Disputes: ['mode', 'provider', 'status'],
  /** one delivery attempt to a merchant's endpoint (`whk_…`); outcome: delivered | failed */
  WebhookDeliveries: ['mode', 'endpoint', 'outcome'],
  /** one renewal of a period; outcome: renewed | past_due | cancelled (cancel_at_period_end) */
  Renewals: ['mode', 'outcome'],
  /** an operation whose lease ended, taken up by the reconciler; entity: payment | refund | invoice | dispute;
   * action: settled | deferred (could not be finished yet: the next run tries again) */
  ReconcilerActions: ['entity', 'action'],
} as const satisfies Record<string, readonly string[]>;

export type BusinessMetric = keyof typeof BUSINESS_METRICS;
export type DimensionsOf<M extends BusinessMetric> = Record<(typeof BUSINESS_METRICS)[M][number], string>;

/** Powertools Metrics, loaded by the first count: a function that counts nothing (a read, a list) never loads it. */
const powertoolsMetrics = onFirstUse(async () => {
  const { Metrics, MetricUnit } = await import('@aws-lambda-powertools/metrics');
  // the namespace the alarms and the dashboard are built on; the `service` dimension is POWERTOOLS_SERVICE_NAME
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE });
  return { metrics, MetricUnit };
});

/** Counts one business event at once, with its own dimensions (one EMF line, written before this resolves). */
export async function count<M extends BusinessMetric>(name: M, dimensions: DimensionsOf<M>, value = 1): Promise<void> {
  const { metrics, MetricUnit } = await powertoolsMetrics();
  const single = metrics.singleMetric();
  single.addDimensions(dimensions);
  single.addMetric(name, MetricUnit.Count, value);
}
