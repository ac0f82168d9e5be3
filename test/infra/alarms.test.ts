import { describe, expect, it } from 'vitest';
import { catalog } from '../../functions/catalog.ts';
import { areaOf, isHttp } from '../../infra/areas.ts';
import { THRESHOLDS } from '../../infra/constructs/observability.ts';
import { defaultSettings } from '../../infra/stack.ts';
import { BUSINESS_METRICS, METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { PROVIDERS } from '../../shared/providers/types.ts';
import { queueDefinitions } from '../../shared/queues.ts';
import { defaultDeployment, mergedTemplate, type Resource } from './templates.ts';

/*
 * The alarms and the dashboard as synthesized (bundling skipped, as in stack.test.ts): each alarm watches a rate or a
 * sustained condition with a threshold that means something, the business metrics they read are the ones the code
 * emits (shared/metrics.ts: namespace, name, dimension set), and only what needs a person notifies the topic.
 */
const stack = await defaultDeployment();
const resources = mergedTemplate(stack).toJSON().Resources as Record<string, Resource>;

interface MetricQuery {
  Id: string;
  Expression?: string;
  ReturnData?: boolean;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] }; Period: number; Stat: string };
}
interface AlarmProps {
  AlarmDescription: string;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  TreatMissingData: string;
  AlarmActions?: unknown[];
  Metrics?: MetricQuery[];
  MetricName?: string;
  Namespace?: string;
}

const alarms = Object.entries(resources)
  .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
  .map(([id, r]) => ({ id, ...(r.Properties as unknown as AlarmProps) }));
const composites = Object.entries(resources)
  .filter(([, r]) => r.Type === 'AWS::CloudWatch::CompositeAlarm')
  .map(([id, r]) => ({ id, rule: JSON.stringify(r.Properties!.AlarmRule), actions: r.Properties!.AlarmActions as unknown[] | undefined }));
/** The one alarm whose logical id starts with the construct path `Observability<name>`. */
const alarm = (name: string) => {
  const found = alarms.filter((a) => a.id.startsWith(`Observability${name.replace(/[^A-Za-z0-9]/g, '')}`));
  expect(
    found.map((a) => a.id),
    name,
  ).toHaveLength(1);
  return found[0]!;
};
const expressionOf = (a: AlarmProps) => a.Metrics!.find((m) => m.ReturnData !== false)!.Expression!;
const statsOf = (a: AlarmProps) => a.Metrics!.filter((m) => m.MetricStat).map((m) => m.MetricStat!);
const dimensions = (stat: NonNullable<MetricQuery['MetricStat']>) => Object.fromEntries((stat.Metric.Dimensions ?? []).map((d) => [d.Name, d.Value]));

describe('alarms', () => {
  it('on the API 5XX rate (not a count): over 1% in 3 of 5 minutes, with a minimum of requests', () => {
    const a = alarm('ApiServerErrorRate');
    expect(a).toMatchObject({ Threshold: THRESHOLDS.apiServerErrorPercent, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 5 });
    expect(a.DatapointsToAlarm).toBe(3);
    expect(THRESHOLDS.apiServerErrorPercent).toBeGreaterThan(0);
    expect(expressionOf(a)).toBe(`IF(requests >= ${THRESHOLDS.minRequests}, 100 * errors / requests, 0)`);
    expect(
      statsOf(a)
        .map((s) => s.Metric.MetricName)
        .sort(),
    ).toEqual(['5XXError', 'Count']);
    expect(statsOf(a).every((s) => dimensions(s).ApiName === 'PaymentOrchestration')).toBe(true);
  });

  it('on the p99 latency of every route group (the /api area), with more room where a provider is called', () => {
    const areas = new Map<string, number>();
    for (const spec of catalog.filter(isHttp)) areas.set(areaOf(spec), (areas.get(areaOf(spec)) ?? 0) + 1);
    for (const [area, functions] of areas) {
      // an alarm's expression takes at most 10 metrics: a larger group is watched in parts (`hosted-1`, `hosted-2`)
      const parts = functions > 10 ? Array.from({ length: Math.ceil(functions / 10) }, (_, i) => `${area}-${i + 1}`) : [area];
      expect(parts.reduce((sum, part) => sum + statsOf(alarm(`Latency-${part}`)).length, 0)).toBe(functions);
      for (const part of parts) {
        const a = alarm(`Latency-${part}`);
        const budget = area === 'payments' || area === 'connectors' ? THRESHOLDS.providerLatencyP99Ms : undefined;
        if (budget) expect(a.Threshold).toBe(budget);
        expect([THRESHOLDS.latencyP99Ms, THRESHOLDS.providerLatencyP99Ms]).toContain(a.Threshold);
        expect(a).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 3, ComparisonOperator: 'GreaterThanThreshold' });
        expect(expressionOf(a)).toMatch(/^MAX\(\[/);
        expect(statsOf(a).every((s) => s.Metric.MetricName === 'Duration' && s.Stat === 'p99')).toBe(true);
      }
    }
    expect(alarm('Latency-analytics').Threshold).toBe(THRESHOLDS.latencyP99Ms);
  });

  it.each(PROVIDERS)("on %s's live approval rate: under 60%% for 15 minutes, only with enough attempts", (provider) => {
    const a = alarm(`ApprovalRate-${provider}`);
    expect(a).toMatchObject({
      Threshold: THRESHOLDS.approvalPercent,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
    expect(expressionOf(a)).toContain(`>= ${THRESHOLDS.minAttempts}`);
    const stats = statsOf(a);
    expect(stats.map((s) => dimensions(s).outcome).sort()).toEqual(['approved', 'declined', 'failed', 'unknown']);
    for (const s of stats) {
      expect(s.Metric).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'Authorizations' });
      expect(dimensions(s)).toMatchObject({ service: defaultSettings.serviceName, mode: 'live', provider });
      expect(Object.keys(dimensions(s)).sort()).toEqual(['service', ...BUSINESS_METRICS.Authorizations].sort());
    }
  });

  it.each(PROVIDERS)('on unknown outcomes at %s (live): 3 or more in 5 minutes, over every money-moving operation', (provider) => {
    const a = alarm(`UnknownOutcomes-${provider}`);
    expect(a).toMatchObject({ Threshold: THRESHOLDS.unknownOutcomes - 1, ComparisonOperator: 'GreaterThanThreshold' });
    expect(
      statsOf(a)
        .map((s) => dimensions(s).operation)
        .sort(),
    ).toEqual(['authorize', 'capture', 'refund', 'void']);
    for (const s of statsOf(a)) {
      expect(s.Metric).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'UnknownOutcomes' });
      expect(Object.keys(dimensions(s)).sort()).toEqual(['service', ...BUSINESS_METRICS.UnknownOutcomes].sort());
    }
  });

  it.each(queueDefinitions.map((q) => q.name))('on the %s queue: any dead letter at once, and an oldest message stuck for 15 minutes', (name) => {
    const dlq = alarm(`${name}-dlq-depth`);
    expect(dlq).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(dlq.AlarmActions).toHaveLength(1);
    const age = alarm(`${name}-oldest-message`);
    expect(age).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    expect(age.Threshold).toBeGreaterThanOrEqual(900);
    expect(age.AlarmActions).toHaveLength(1);
  });

  it('on throttles: Lambda (account-wide) and the table, in 2 of 3 minutes', () => {
    expect(alarm('LambdaThrottles')).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda', EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    const table = alarm('TableThrottles');
    expect(statsOf(table).every((s) => s.Metric.MetricName === 'ThrottledRequests')).toBe(true);
    expect(statsOf(table).map((s) => dimensions(s).Operation)).toEqual(expect.arrayContaining(['GetItem', 'Query', 'TransactWriteItems']));
  });

  it('on every worker error rate (not any single error), notified', () => {
    const workers = catalog.filter((f) => !isHttp(f));
    const rates = alarms.filter((a) => a.id.includes('ErrorRate') && !a.id.includes('ApiServer'));
    expect(rates).toHaveLength(workers.length);
    for (const a of rates) {
      expect(a).toMatchObject({ Threshold: THRESHOLDS.workerErrorPercent, DatapointsToAlarm: 2 });
      expect(expressionOf(a)).toBe('IF(invocations >= 5, 100 * errors / invocations, 0)');
      expect(a.AlarmActions).toHaveLength(1);
    }
  });

  it('on a stream consumer falling behind the table stream (events waiting), for 3 minutes, notified', () => {
    const consumers = catalog.filter((f) => f.trigger.type === 'stream');
    const ages = alarms.filter((a) => a.id.includes('IteratorAge'));
    expect(consumers.length).toBeGreaterThan(0);
    expect(ages).toHaveLength(consumers.length);
    for (const a of ages) {
      expect(a).toMatchObject({
        MetricName: 'IteratorAge',
        Namespace: 'AWS/Lambda',
        Threshold: THRESHOLDS.streamIteratorAgeMs,
        DatapointsToAlarm: 3,
      });
      expect(a.AlarmActions).toHaveLength(1);
    }
  });

  it('never on a single error: every alarm but a dead letter needs a rate, a volume or several periods', () => {
    const single = alarms.filter((a) => a.EvaluationPeriods === 1 && a.DatapointsToAlarm === 1 && a.Threshold === 0);
    expect(single.map((a) => a.id).every((id) => id.includes('dlqdepth'))).toBe(true);
    expect(alarms.every((a) => a.TreatMissingData === 'notBreaching')).toBe(true);
  });

  it('pages through two composites; their components do not page on their own', () => {
    const byName = (name: string) => composites.find((c) => c.id.startsWith(`Observability${name}`))!;
    const api = byName('ApiDegraded');
    const payments = byName('PaymentsAtRisk');
    for (const c of [api, payments]) expect(c.actions).toHaveLength(1);
    const inRule = (rule: string, name: string) => rule.includes(alarm(name).id);
    expect(['ApiServerErrorRate', 'Latency-payments', 'LambdaThrottles', 'TableThrottles'].every((n) => inRule(api.rule, n))).toBe(true);
    expect(PROVIDERS.every((p) => inRule(payments.rule, `ApprovalRate-${p}`) && inRule(payments.rule, `UnknownOutcomes-${p}`))).toBe(true);
    const components = ['ApiServerErrorRate', 'Latency-payments', `ApprovalRate-${PROVIDERS[0]}`, `UnknownOutcomes-${PROVIDERS[0]}`];
    for (const name of components) expect(alarm(name).AlarmActions).toBeUndefined();
  });
});

describe('the dashboard', () => {
  const body = JSON.stringify(Object.values(resources).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')!.Properties!.DashboardBody);

  it("shows the business metrics of the code's namespace, the alarms' status and the queues", () => {
    expect(body).toContain(METRICS_NAMESPACE);
    for (const name of ['Authorizations', 'Failovers', 'UnknownOutcomes', 'Declines', 'WebhookDeliveries', 'Renewals', 'ReconcilerActions']) {
      expect(body, name).toContain(name);
    }
    for (const title of [
      'Alarms',
      'API 5XX rate',
      'p99 latency by route group',
      'Approval rate by provider',
      'Dead-letter queue depth',
      'Throttles',
    ]) {
      expect(body, title).toContain(title);
    }
  });
});
