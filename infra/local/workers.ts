/**
 * Background triggers, locally: an SQS poller per queue function (what Lambda's event source mapping does) and a
 * timer per schedule function (what an EventBridge schedule does).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import type { FunctionSpec, Trigger } from '../../functions/catalog.ts';
import { queueDefinitions } from '../../shared/queues.ts';
import { invokeFunction, lambdaFunctionName, loadHandler, queueArn, scheduledEvent, sqsEvent, type HandlerLoader } from './lambda.ts';

type QueueSpec = FunctionSpec & { trigger: Extract<Trigger, { type: 'queue' }> };
type ScheduleSpec = FunctionSpec & { trigger: Extract<Trigger, { type: 'schedule' }> };

export interface Workers {
  /** Names of the functions being driven. */
  names: string[];
  stop(): Promise<void>;
}

export interface PollerOptions {
  catalog: readonly FunctionSpec[];
  sqs: SQSClient;
  /** env var → queue URL (from `createQueues`). */
  queueUrls: Record<string, string>;
  loader?: HandlerLoader;
  /** Long-poll wait (s). Short keeps shutdown fast. Default 1. */
  waitTimeSeconds?: number;
  log?: (line: string) => void;
}

/**
 * Poll each queue function's queue and invoke the function with an SQS event. Messages are deleted unless listed in
 * the response's `batchItemFailures`; when the function throws, none are deleted (they come back after the
 * visibility timeout and end in the DLQ after `maxReceiveCount` receives, as in AWS).
 */
export function startQueuePollers(options: PollerOptions): Workers {
  const specs = options.catalog.filter((f): f is QueueSpec => f.trigger.type === 'queue');
  const log = options.log ?? ((line: string) => console.log(line));
  const abort = new AbortController();
  const loops = specs.map((spec) => pollLoop(spec, options, abort.signal, log));
  let stopping: Promise<void> | undefined;
  return {
    names: specs.map((s) => s.name),
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await Promise.allSettled(loops);
      })()),
  };
}

async function pollLoop(spec: QueueSpec, options: PollerOptions, signal: AbortSignal, log: (line: string) => void): Promise<void> {
  const definition = queueDefinitions.find((q) => q.name === spec.trigger.queue);
  const queueUrl = definition && options.queueUrls[definition.envVar];
  if (!queueUrl) {
    log(`[poller] ${spec.name}: no URL for queue "${spec.trigger.queue}", not polling`);
    return;
  }
  const arn = queueArn(spec.trigger.queue);
  const loader = options.loader ?? loadHandler;
  while (!signal.aborted) {
    let messages;
    try {
      const out = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, Math.max(1, spec.trigger.batchSize)),
          WaitTimeSeconds: options.waitTimeSeconds ?? 1,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      messages = out.Messages ?? [];
    } catch (err) {
      if (signal.aborted) return;
      log(`[poller] ${spec.name}: receive failed: ${(err as Error).message}`);
      await sleep(1000, signal);
      continue;
    }
    if (messages.length === 0) continue;

    const event = sqsEvent(messages, arn);
    const started = performance.now();
    let failedIds: Set<string>;
    try {
      const response = await invokeFunction<SQSBatchResponse | void>(spec, event, { loader });
      failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      console.error(`[poller] ${spec.name} failed on ${messages.length} message(s); they will be retried:`, err);
      continue;
    }
    const done = event.Records.filter((r) => !failedIds.has(r.messageId));
    if (done.length > 0) {
      try {
        await options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
          }),
        );
      } catch (err) {
        log(`[poller] ${spec.name}: delete failed: ${(err as Error).message}`);
      }
    }
    const ms = Math.round(performance.now() - started);
    log(`[poller] ${spec.name}: ${messages.length} message(s), ${failedIds.size} failed, ${ms} ms`);
  }
}

export interface TimerOptions {
  catalog: readonly FunctionSpec[];
  loader?: HandlerLoader;
  /** Length of a "minute" in ms (tests shorten it). Default 60 000. */
  minuteMs?: number;
  log?: (line: string) => void;
}

/**
 * Fire each schedule function every `everyMinutesLocally` minutes with an EventBridge scheduled event. A run that
 * is still going when the next is due is not overlapped (the tick is skipped).
 */
export function startScheduleTimers(options: TimerOptions): Workers {
  const specs = options.catalog.filter((f): f is ScheduleSpec => f.trigger.type === 'schedule');
  const log = options.log ?? ((line: string) => console.log(line));
  const loader = options.loader ?? loadHandler;
  const minuteMs = options.minuteMs ?? 60_000;
  const running = new Map<string, Promise<void>>();
  let stopped = false;

  const fire = (spec: ScheduleSpec) => {
    if (stopped || running.has(spec.name)) return;
    const started = performance.now();
    const run = invokeFunction(spec, scheduledEvent(lambdaFunctionName(spec.name)), { loader })
      .then(() => log(`[schedule] ${spec.name}: done in ${Math.round(performance.now() - started)} ms`))
      .catch((err: unknown) => console.error(`[schedule] ${spec.name} failed:`, err))
      .finally(() => running.delete(spec.name));
    running.set(spec.name, run);
  };

  const timers = specs.map((spec) => setInterval(() => fire(spec), Math.max(1, spec.trigger.everyMinutesLocally * minuteMs)));
  let stopping: Promise<void> | undefined;
  return {
    names: specs.map((s) => s.name),
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        for (const t of timers) clearInterval(t);
        await Promise.allSettled(running.values());
      })()),
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const t = setTimeout(done, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        done();
      },
      { once: true },
    );
  });
}
