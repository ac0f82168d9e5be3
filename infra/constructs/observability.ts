import { Duration } from 'aws-cdk-lib';
import type { RestApi, Stage } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, type IMetric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { AppFunction } from './functions.ts';
import type { AppQueue } from './queues.ts';

export interface ObservabilityProps {
  api: RestApi;
  stage: Stage;
  functions: readonly AppFunction[];
  queues: readonly AppQueue[];
  key: IKey;
  /** Subscribed to the alarm topic when given. */
  alarmEmail?: string | undefined;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Alarms (to one encrypted SNS topic) and a dashboard:
 * - a message in any dead-letter queue (a webhook or renewal that exhausted its retries),
 * - any 5XX answered by the API (an HTTP function's error is one), any error of a worker (queue or schedule).
 */
export class Observability extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Alarms', { displayName: 'Payment orchestration alarms', masterKey: props.key, enforceSSL: true });
    // CloudWatch publishes alarm notifications to the encrypted topic.
    props.key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    for (const { definition, deadLetterQueue } of props.queues) {
      this.alarm(`${definition.name}-dlq-depth`, {
        description: `Messages in the ${definition.name} dead-letter queue: they failed ${definition.maxReceiveCount} times`,
        metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }),
      });
    }
    this.alarm('Api5xx', {
      description: 'The API answered 5XX',
      metric: props.stage.metricServerError({ period: FIVE_MINUTES, statistic: Stats.SUM }),
    });
    // An HTTP function's error is an API 5XX (above); workers answer nobody, so each has its own alarm.
    for (const fn of props.functions.filter((f) => f.spec.trigger.type !== 'http')) {
      this.alarm(`${fn.node.id}Errors`, {
        description: `Lambda ${fn.spec.name} failed`,
        metric: fn.function.metricErrors({ period: FIVE_MINUTES, statistic: Stats.SUM }),
      });
    }

    const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 12 });
    new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          graph('API requests and errors', [
            props.stage.metricCount({ period: FIVE_MINUTES }),
            props.stage.metricClientError({ period: FIVE_MINUTES }),
            props.stage.metricServerError({ period: FIVE_MINUTES }),
          ]),
          graph('API latency p99 (ms)', [
            props.stage.metricLatency({ period: FIVE_MINUTES, statistic: Stats.p(99) }),
            props.api.metricIntegrationLatency({ period: FIVE_MINUTES, statistic: Stats.p(99) }),
          ]),
        ],
        [
          graph(
            'Function errors',
            props.functions.map((fn) => fn.function.metricErrors({ period: FIVE_MINUTES, label: fn.spec.name })),
          ),
          graph(
            'Function duration p99 (ms)',
            props.functions.map((fn) => fn.function.metricDuration({ period: FIVE_MINUTES, statistic: Stats.p(99), label: fn.spec.name })),
          ),
        ],
        [
          graph(
            'Queue age of oldest message (s)',
            props.queues.map((q) => q.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: q.definition.name })),
          ),
          graph(
            'Dead-letter queue depth',
            props.queues.map((q) =>
              q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: `${q.definition.name}-dlq` }),
            ),
          ),
        ],
      ],
    });
  }

  /** Fires when the metric is above zero in one period; no data (no traffic) is fine. */
  private alarm(id: string, props: { description: string; metric: IMetric }): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: props.description,
      metric: props.metric,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
