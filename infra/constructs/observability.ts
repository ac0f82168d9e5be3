import { Duration } from 'aws-cdk-lib';
import type { RestApi, Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmRule,
  AlarmStatusWidget,
  ComparisonOperator,
  CompositeAlarm,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, type BusinessMetric, type DimensionsOf, METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { PROVIDERS } from '../../shared/providers/types.ts';
import { areaOf, isHttp } from '../areas.ts';
import type { AppFunction } from './functions.ts';
import type { AppQueue } from './queues.ts';

export interface ObservabilityProps {
  api: RestApi;
  stage: Stage;
  functions: readonly AppFunction[];
  queues: readonly AppQueue[];
  table: ITable;
  key: IKey;
  /** the `service` dimension Powertools adds to every business metric (POWERTOOLS_SERVICE_NAME) */
  serviceName: string;
  /** Subscribed to the alarm topic when given. */
  alarmEmail?: string | undefined;
}

const ONE_MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

/** The thresholds, in one place: what "unhealthy" means for this service. */
export const THRESHOLDS = {
  /** % of API requests answered 5XX, over 1-minute periods with at least `minRequests` requests */
  apiServerErrorPercent: 1,
  minRequests: 20,
  /** p99 Lambda duration of a route group's slowest function, ms: groups that call a provider get more */
  latencyP99Ms: 1_000,
  providerLatencyP99Ms: 3_000,
  /** live approval rate of a provider (approved ÷ all attempts, %), over 5 minutes with at least `minAttempts` */
  approvalPercent: 60,
  minAttempts: 20,
  /** unknown outcomes (timeouts after sending) at one live provider in 5 minutes */
  unknownOutcomes: 3,
  /** % of a worker's invocations that failed, over 5 minutes with at least 5 invocations */
  workerErrorPercent: 10,
  /** age of the newest record a stream consumer has read, ms: events wait this long before their first delivery */
  streamIteratorAgeMs: 5 * 60_000,
} as const;

/** The table operations the service makes (an alarm's expression may hold at most 10 metrics). */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/** CloudWatch's most metrics in one alarm's math expression. */
const MAX_ALARM_METRICS = 10;

/** Route groups whose functions call a provider while the client waits. */
const PROVIDER_AREAS = new Set(['payments', 'connectors', 'disputes', 'test_helpers', 'webhooks']);

/**
 * How long the oldest message of a queue may wait (seconds): a webhook retry is sent again within 15 minutes (SQS's
 * longest delay) so anything older is stuck; a renewal or an advance is picked up within minutes.
 */
const QUEUE_AGE_SECONDS: Record<string, number> = { events: 1_800, renewals: 900, clocks: 900 };

/**
 * Alarms that mean something and a dashboard of the service's health (docs/operations.md).
 * Each alarm watches a rate or a sustained condition, never a single error; missing data (no traffic) is fine.
 * The topic is told only what needs a person: the composites (API degraded, payments at risk), a dead letter, a
 * stuck queue, a failing worker. The components of the composites stay visible on the dashboard without paging.
 */
export class Observability extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly composites: CompositeAlarm[] = [];
  readonly dashboard: Dashboard;
  private readonly serviceName: string;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.serviceName = props.serviceName;
    this.topic = new Topic(this, 'Alarms', { displayName: 'Payment orchestration alarms', masterKey: props.key, enforceSSL: true });
    // CloudWatch publishes alarm notifications to the encrypted topic.
    props.key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    // API: 5XX rate and p99 latency per route group (the area after /api)
    const requests = props.stage.metricCount({ period: ONE_MINUTE, statistic: Stats.SUM });
    const serverErrorRate = new MathExpression({
      expression: `IF(requests >= ${THRESHOLDS.minRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: props.stage.metricServerError({ period: ONE_MINUTE, statistic: Stats.SUM }) },
      label: 'API 5XX rate (%)',
      period: ONE_MINUTE,
    });
    const api5xx = this.alarm('ApiServerErrorRate', {
      description: `More than ${THRESHOLDS.apiServerErrorPercent}% of API requests answered 5XX in 3 of 5 minutes`,
      metric: serverErrorRate,
      threshold: THRESHOLDS.apiServerErrorPercent,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
    });
    const groups = new Map<string, AppFunction[]>();
    for (const fn of props.functions.filter((f) => isHttp(f.spec))) {
      const area = areaOf(fn.spec as Parameters<typeof areaOf>[0]);
      groups.set(area, [...(groups.get(area) ?? []), fn]);
    }
    // an alarm's math expression takes at most 10 metrics: a larger group (the shopper pages) is watched in parts
    for (const [area, fns] of [...groups]) {
      if (fns.length <= MAX_ALARM_METRICS) continue;
      groups.delete(area);
      for (let part = 0; part * MAX_ALARM_METRICS < fns.length; part++) {
        groups.set(`${area}-${part + 1}`, fns.slice(part * MAX_ALARM_METRICS, (part + 1) * MAX_ALARM_METRICS));
      }
    }
    const latency = [...groups].map(([area, fns]) => {
      const budget = PROVIDER_AREAS.has(area) ? THRESHOLDS.providerLatencyP99Ms : THRESHOLDS.latencyP99Ms;
      const p99 = slowestP99(area, fns);
      return this.alarm(`Latency-${area}`, {
        description: `p99 duration of the slowest /api/${area} function over ${budget} ms for 3 periods of 5 minutes`,
        metric: p99,
        threshold: budget,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
      });
    });

    // Payments: live approval rate and unknown outcomes per provider
    const approval = PROVIDERS.map((provider) =>
      this.alarm(`ApprovalRate-${provider}`, {
        description: `Live approval rate at ${provider} under ${THRESHOLDS.approvalPercent}% for 15 minutes (at least ${THRESHOLDS.minAttempts} attempts per 5 minutes)`,
        metric: this.approvalRate(provider),
        threshold: THRESHOLDS.approvalPercent,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
      }),
    );
    const unknown = PROVIDERS.map((provider) =>
      this.alarm(`UnknownOutcomes-${provider}`, {
        description: `${THRESHOLDS.unknownOutcomes} or more live ${provider} calls in 5 minutes whose outcome is unknown (the reconciler settles them; many mean the provider is failing)`,
        metric: this.unknownOutcomes(provider),
        threshold: THRESHOLDS.unknownOutcomes - 1,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
      }),
    );

    // Capacity: throttled Lambdas (account-wide) and DynamoDB requests
    const lambdaThrottles = this.alarm('LambdaThrottles', {
      description: 'Lambda invocations throttled in 2 of 3 minutes (the account or a function ran out of concurrency)',
      metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: Stats.SUM, period: ONE_MINUTE }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    const tableThrottles = this.alarm('TableThrottles', {
      description: 'DynamoDB requests throttled in 2 of 3 minutes (a hot key, or on-demand scaling behind a surge)',
      metric: props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: ONE_MINUTE }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    // Background work: dead letters, stuck queues, failing workers (each needs a person: notified directly)
    for (const { definition, queue, deadLetterQueue } of props.queues) {
      this.notify(
        this.alarm(`${definition.name}-dlq-depth`, {
          description: `A message in the ${definition.name} dead-letter queue: it failed ${definition.maxReceiveCount} times or was given up on`,
          metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: ONE_MINUTE, statistic: Stats.MAXIMUM }),
          threshold: 0,
        }),
      );
      const maxAge = QUEUE_AGE_SECONDS[definition.name] ?? 900;
      this.notify(
        this.alarm(`${definition.name}-oldest-message`, {
          description: `The oldest ${definition.name} message has waited over ${maxAge} s for 3 periods of 5 minutes: its consumer is stuck or too slow`,
          metric: queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: Stats.MAXIMUM }),
          threshold: maxAge,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
        }),
      );
    }
    for (const fn of props.functions.filter((f) => f.spec.trigger.type === 'stream')) {
      this.notify(
        this.alarm(`${fn.node.id}IteratorAge`, {
          description: `${fn.spec.name} is over ${THRESHOLDS.streamIteratorAgeMs / 60_000} minutes behind the table's stream for 3 periods of 1 minute: events wait (the stream keeps records 24 hours)`,
          metric: fn.function.metric('IteratorAge', { period: ONE_MINUTE, statistic: Stats.MAXIMUM }),
          threshold: THRESHOLDS.streamIteratorAgeMs,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
        }),
      );
    }
    for (const fn of props.functions.filter((f) => !isHttp(f.spec))) {
      this.notify(
        this.alarm(`${fn.node.id}ErrorRate`, {
          description: `Over ${THRESHOLDS.workerErrorPercent}% of ${fn.spec.name} invocations failed in 2 of 3 periods of 5 minutes`,
          metric: new MathExpression({
            expression: `IF(invocations >= 5, 100 * errors / invocations, 0)`,
            usingMetrics: {
              invocations: fn.function.metricInvocations({ period: FIVE_MINUTES, statistic: Stats.SUM }),
              errors: fn.function.metricErrors({ period: FIVE_MINUTES, statistic: Stats.SUM }),
            },
            label: `${fn.spec.name} error rate (%)`,
            period: FIVE_MINUTES,
          }),
          threshold: THRESHOLDS.workerErrorPercent,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
        }),
      );
    }

    // What pages: the API degraded (errors, latency, throttling) and payments at risk (approvals, unknown outcomes)
    const apiDegraded = this.composite('ApiDegraded', 'The API fails, is slow or is throttled: see which alarm below fired', [
      api5xx,
      ...latency,
      lambdaThrottles,
      tableThrottles,
    ]);
    const paymentsAtRisk = this.composite(
      'PaymentsAtRisk',
      'A provider approves far fewer payments than usual, or its calls end with unknown outcomes',
      [...approval, ...unknown],
    );

    this.dashboard = this.buildDashboard(props, { serverErrorRate, groups, composites: [apiDegraded, paymentsAtRisk] });
  }

  /** A business metric of shared/metrics.ts, with Powertools' `service` dimension. */
  businessMetric<M extends BusinessMetric>(name: M, dimensions: DimensionsOf<M>, options: { period?: Duration; label?: string } = {}): Metric {
    const names = BUSINESS_METRICS[name] as readonly string[];
    const missing = names.filter((d) => !(d in dimensions));
    if (missing.length) throw new Error(`${name} needs the dimensions ${missing.join(', ')}`);
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: this.serviceName, ...dimensions },
      statistic: Stats.SUM,
      period: options.period ?? FIVE_MINUTES,
      ...(options.label ? { label: options.label } : {}),
    });
  }

  /** Every series of a business metric (one per value of its dimensions), for the dashboard: alarms cannot search. */
  private search(name: BusinessMetric, labelledBy: string, filter: string): MathExpression {
    const schema = [METRICS_NAMESPACE, 'service', ...BUSINESS_METRICS[name]].join(',');
    return new MathExpression({
      expression: `SEARCH('{${schema}} MetricName="${name}" service="${this.serviceName}" ${filter}', 'Sum', 300)`,
      usingMetrics: {},
      label: labelledBy,
      period: FIVE_MINUTES,
    });
  }

  /** approved ÷ all attempts at a live provider, in %; 100 (healthy) below the minimum volume. */
  private approvalRate(provider: string): MathExpression {
    const outcome = (o: string) => this.businessMetric('Authorizations', { mode: 'live', provider, outcome: o });
    const [approved, declined, failed, unknown] = ['approved', 'declined', 'failed', 'unknown'].map((o) => `${provider}_${o}`);
    const all = `${approved} + ${declined} + ${failed} + ${unknown}`;
    return new MathExpression({
      expression: `IF(${all} >= ${THRESHOLDS.minAttempts}, 100 * ${approved} / (${all}), 100)`,
      usingMetrics: {
        [approved!]: outcome('approved'),
        [declined!]: outcome('declined'),
        [failed!]: outcome('failed'),
        [unknown!]: outcome('unknown'),
      },
      label: `${provider} approval rate (%)`,
      period: FIVE_MINUTES,
    });
  }

  /** Unknown outcomes at a live provider, summed over the operations that move money. */
  private unknownOutcomes(provider: string): MathExpression {
    const operations = ['authorize', 'capture', 'void', 'refund'];
    const usingMetrics = Object.fromEntries(
      operations.map((operation) => [`${provider}_${operation}`, this.businessMetric('UnknownOutcomes', { mode: 'live', provider, operation })]),
    );
    return new MathExpression({
      expression: Object.keys(usingMetrics).join(' + '),
      usingMetrics,
      label: `${provider} unknown outcomes`,
      period: FIVE_MINUTES,
    });
  }

  private alarm(
    id: string,
    props: {
      description: string;
      metric: IMetric;
      threshold: number;
      comparison?: ComparisonOperator;
      evaluationPeriods?: number;
      datapointsToAlarm?: number;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: props.description,
      metric: props.metric,
      threshold: props.threshold,
      comparisonOperator: props.comparison ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: props.evaluationPeriods ?? 1,
      datapointsToAlarm: props.datapointsToAlarm ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(alarm);
    return alarm;
  }

  private notify(alarm: Alarm): void {
    alarm.addAlarmAction(new SnsAction(this.topic));
  }

  private composite(id: string, description: string, alarms: IAlarm[]): CompositeAlarm {
    const composite = new CompositeAlarm(this, id, {
      alarmDescription: description,
      alarmRule: AlarmRule.anyOf(...alarms),
    });
    composite.addAlarmAction(new SnsAction(this.topic));
    this.composites.push(composite);
    return composite;
  }

  private buildDashboard(
    props: ObservabilityProps,
    parts: { serverErrorRate: MathExpression; groups: Map<string, AppFunction[]>; composites: CompositeAlarm[] },
  ): Dashboard {
    const graph = (title: string, left: IMetric[], width = 8) => new GraphWidget({ title, left, width, height: 6 });
    const byProvider = (name: 'Failovers', label: string) =>
      PROVIDERS.map((provider) => this.businessMetric(name, { mode: 'live', provider }, { label: `${provider} ${label}` }));
    return new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new TextWidget({
            markdown: '# Payment orchestration: health\nLive mode. Red alarms first; then traffic, payments, webhooks and background work.',
            width: 24,
            height: 2,
          }),
        ],
        [new AlarmStatusWidget({ title: 'Alarms', alarms: [...parts.composites, ...this.alarms], width: 24, height: 4 })],
        [
          graph('API requests', [props.stage.metricCount({ period: FIVE_MINUTES, statistic: Stats.SUM })]),
          graph('API 5XX rate (%)', [parts.serverErrorRate]),
          graph(
            'p99 latency by route group (ms)',
            [...parts.groups].map(([area, fns]) => slowestP99(area, fns)),
          ),
        ],
        [
          graph(
            'Approval rate by provider (%)',
            PROVIDERS.map((p) => this.approvalRate(p)),
          ),
          graph('Failovers by provider', byProvider('Failovers', 'failovers')),
          graph(
            'Unknown outcomes by provider',
            PROVIDERS.map((p) => this.unknownOutcomes(p)),
          ),
        ],
        [
          graph('Declines by provider and code', [this.search('Declines', 'decline_code', 'mode="live"')], 6),
          graph('Webhook deliveries failed, by endpoint', [this.search('WebhookDeliveries', 'endpoint', 'outcome="failed"')], 6),
          graph(
            'Renewals by outcome',
            ['renewed', 'past_due'].map((outcome) => this.businessMetric('Renewals', { mode: 'live', outcome }, { label: outcome })),
            6,
          ),
          graph(
            'Reconciler actions',
            ['payment', 'refund', 'invoice', 'dispute'].flatMap((entity) =>
              ['settled', 'deferred'].map((action) => this.businessMetric('ReconcilerActions', { entity, action }, { label: `${entity} ${action}` })),
            ),
            6,
          ),
        ],
        [
          graph(
            'Queue: age of oldest message (s)',
            props.queues.map((q) => q.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: q.definition.name })),
          ),
          graph(
            'Dead-letter queue depth',
            props.queues.map((q) =>
              q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: `${q.definition.name}-dlq` }),
            ),
          ),
          graph('Throttles', [
            new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: Stats.SUM, period: FIVE_MINUTES, label: 'Lambda' }),
            props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES, label: 'DynamoDB' }),
          ]),
        ],
      ],
    });
  }
}

/** The p99 duration of a route group's slowest function (CloudWatch cannot merge percentiles across functions). */
function slowestP99(area: string, fns: readonly AppFunction[]): MathExpression {
  const usingMetrics = Object.fromEntries(
    // ids are unique per graph: the area's own prefix
    fns.map((fn, i) => [
      `${area.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${i}`,
      fn.function.metricDuration({ period: FIVE_MINUTES, statistic: Stats.p(99) }),
    ]),
  );
  return new MathExpression({
    expression: `MAX([${Object.keys(usingMetrics).join(', ')}])`,
    usingMetrics,
    label: `/api/${area}`,
    period: FIVE_MINUTES,
  });
}
