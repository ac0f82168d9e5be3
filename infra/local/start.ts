/**
 * `npm start`: the whole API on a laptop (DynamoDB Local, local SQS, the HTTP gateway on PORT, default 3000, queue and
 * stream pollers, schedule timers, the provider fakes, a demo merchant with a test API key and its shop's checkout page on
 * DEMO_PORT, default 3001); `npm start -- --persist`
 * keeps DynamoDB's data under .data/dynamodb. Ctrl-C / SIGTERM stop everything and exit 0. If DynamoDB Local or the SQS
 * server dies on its own, everything stops and it exits 1: a silent restart would bring an empty in-memory database back.
 */
import { relative, resolve } from 'node:path';
import { catalog } from '../../functions/catalog.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { projectRoot } from './lambda.ts';
import { FakePortInUse, portSetting, providerFakeSettings, runProviderFakes, type RunningFakes, SettingError } from './provider-fakes.ts';
import { startLocalStack, type LocalStack } from './services.ts';
import { startQueuePollers, startScheduleTimers, type Workers } from './workers.ts';
import { startStreamPollers } from './stream.ts';
import { type DemoCheckout, startDemoCheckout } from './demo-checkout/server.ts';

const persist = process.argv.includes('--persist');
const port = setting(() => portSetting('PORT', process.env.PORT, 3000));
const demoPort = setting(() => portSetting('DEMO_PORT', process.env.DEMO_PORT, 3001));
const logLevel = setting(() => parseLogLevel(process.env.LOG_LEVEL));
const fakeSettings = setting(() => providerFakeSettings(process.env));
const started = Date.now();

let stack: LocalStack | undefined;
let fakes: RunningFakes | undefined;
let gateway: Gateway | undefined;
let pollers: Workers | undefined;
let timers: Workers | undefined;
let streams: Workers | undefined;
let shop: DemoCheckout | undefined;
let shuttingDown = false;
let shutdownStarted = 0;

async function shutdown(reason: string, exitCode: number): Promise<never | void> {
  if (shuttingDown) {
    // The same Ctrl-C often arrives twice (from the terminal and relayed by the tsx wrapper): ignore repeats
    // for a moment. A later one is the user insisting: stop waiting (the exit hook kills Java synchronously).
    if (Date.now() - shutdownStarted < 3000) return;
    console.log('\nForced exit.');
    process.exit(exitCode || 130);
  }
  shuttingDown = true;
  shutdownStarted = Date.now();
  console.log(`\n${reason}: stopping…`);
  // Never hang on the way out.
  setTimeout(() => {
    console.error('Shutdown took too long; forcing exit.');
    process.exit(1);
  }, 15_000).unref();
  await Promise.allSettled([gateway?.close(), shop?.close(), pollers?.stop(), streams?.stop(), timers?.stop(), fakes?.close()]);
  await stack?.stop().catch((err: unknown) => console.error('Stopping local services failed:', err));
  console.log('Stopped.');
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(signal, 0));
}

try {
  // The provider fakes start while Java does; if either fails, what did start is stopped again (shutdown below).
  const [stackResult, fakesResult] = await Promise.allSettled([
    startLocalStack({
      persistPath: persist ? resolve(projectRoot, '.data/dynamodb') : undefined,
      verbose: process.env.DYNAMODB_VERBOSE === 'true',
      logLevel,
      emitMetrics: true,
    }),
    runProviderFakes(fakeSettings),
  ]);
  stack = stackResult.status === 'fulfilled' ? stackResult.value : undefined;
  fakes = fakesResult.status === 'fulfilled' ? fakesResult.value : undefined;
  if (!stack || !fakes) throw ([stackResult, fakesResult].find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
  // A dead service is never papered over: the API cannot work without it, so the runtime says so and exits 1.
  void stack.died.then((death) => {
    if (shuttingDown) return;
    const data = persist ? 'Data persisted in .data/dynamodb is kept.' : 'Its in-memory data (tables, demo merchant, keys) is gone.';
    const line = '!'.repeat(72);
    console.error(
      [
        '',
        line,
        `  ${death.service} ${death.how}: the local API cannot work without it.`,
        ...(death.service === 'DynamoDB Local' ? [`  ${data}`] : []),
        '  Stopping everything (exit code 1). Start again with `npm start`.',
        ...(death.output
          ? [
              '',
              `  Last output of ${death.service}:`,
              ...death.output
                .split('\n')
                .slice(-10)
                .map((l) => `    ${l}`),
            ]
          : []),
        line,
      ].join('\n'),
    );
    void shutdown(`${death.service} died`, 1);
  });
  // Before any handler module is imported: shared/config.ts reads the environment at import time. The fakes' base
  // URLs never replace one the user set (no fake is started for that provider).
  Object.assign(process.env, stack.env, fakes.env);
  (await import('./private-functions.ts')).runPrivateFunctionsInProcess(catalog);

  // The dashboard is built once, here: a build error stops the start as any other start-up fault does.
  const { bundleDashboard } = await import('../../dashboard/build.ts');
  const dashboard = await bundleDashboard();
  gateway = await startGateway({ port, catalog, dashboard: async () => dashboard });
  // Links made outside a request (a renewal's invoice e-mail) point at this gateway.
  process.env.PUBLIC_API_URL = gateway.url;
  pollers = startQueuePollers({ catalog, sqs: stack.sqs.client, queueUrls: stack.queueUrls });
  timers = startScheduleTimers({ catalog });
  streams = await startStreamPollers({
    catalog,
    dynamo: stack.dynamo.client,
    dynamoEndpoint: stack.dynamo.endpoint,
    tableName: stack.tableName,
    sqs: stack.sqs.client,
    queueUrls: stack.queueUrls,
  });

  const { createDemoMerchant } = await import('../../shared/domain/demo.ts');
  const demo = await createDemoMerchant();
  // The demo merchant's shop on its own origin, allowed to frame the card fields (its checkout_origins).
  if (demo.publishableKey) {
    shop = await startDemoCheckout({ port: demoPort, apiUrl: gateway.url, publishableKey: demo.publishableKey, secretKey: demo.apiKey });
    const { changeSettings } = await import('../../shared/domain/settings.ts');
    await changeSettings({ id: demo.merchantId, credential: 'api_key', livemode: false }, { checkout_origins: [shop.url] });
  }

  const httpCount = catalog.filter((f) => f.trigger.type === 'http').length;
  const queues = Object.entries(stack.queueUrls)
    .map(([envVar, url]) => `${url.slice(url.lastIndexOf('/') + 1)} (${envVar})`)
    .join(', ');
  const line = '─'.repeat(72);
  const providerFakes = fakes.banner({ url: gateway.url, apiKey: demo.apiKey });
  if (!shuttingDown)
    console.log(
      [
        '',
        line,
        `  Payment orchestration API (local)   ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        line,
        `  API            ${gateway.url}   (${httpCount} HTTP functions)`,
        `  Docs           ${gateway.url}/docs   (OpenAPI: ${gateway.url}/api/openapi.json)`,
        `  Dashboard      ${gateway.url}/dashboard   (sign in with the demo e-mail; its code is printed and in the outbox)`,
        `  Outbox         ${gateway.url}/_local/outbox   (OTP e-mails and other sent messages)`,
        `  DynamoDB Local ${stack.dynamo.endpoint}   table ${stack.tableName}, ${persist ? 'persisted in .data/dynamodb' : 'in memory'} (pid ${stack.dynamo.pid})`,
        `  Card vault     tables ${stack.vaultTableName} and ${stack.cvcTableName} (CVCs), raw AES keys in ${relative(projectRoot, stack.env.VAULT_KEY_FILE ?? '')} (0600, kept)`,
        `  SQS            ${stack.sqs.endpoint}   queues ${queues}`,
        `  Workers        ${[...pollers.names, ...streams.names, ...timers.names].join(', ') || 'none in the catalog yet'}`,
        line,
        `  Demo merchant  ${demo.merchantId} (${demo.email})`,
        `  Test API key   ${demo.apiKey}`,
        `  Publishable    ${demo.publishableKey ?? 'none'}   (may only save cards: POST /api/payment_methods)`,
        '',
        `  Demo checkout  ${shop ? `${shop.url}   (a shop page: card fields → pm_ → the shop's server charges it)` : 'off (no publishable key)'}`,
        '',
        `  curl -s ${gateway.url}/api/customers -H "Authorization: Bearer ${demo.apiKey}"`,
        line,
        ...providerFakes,
        line,
        '  Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
} catch (err) {
  if (err instanceof FakePortInUse) {
    const { portVar, port: taken } = err.fake;
    console.error(`${err.message} Stop what is using it or pick another: ${portVar}=${taken + 10} npm start (or PROVIDER_FAKES=off npm start)`);
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`Port ${port} or ${demoPort} is in use. Stop what is using it or pick others: PORT=3100 DEMO_PORT=3101 npm start`);
  } else {
    console.error('Local runtime failed to start:', err);
  }
  await shutdown('Start-up failed', 1);
}

/** A setting read from the environment; one that cannot be used is printed and the runtime exits 1. */
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof SettingError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

function parseLogLevel(value: string | undefined): 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' {
  const level = (value || 'INFO').toUpperCase();
  if (level === 'DEBUG' || level === 'INFO' || level === 'WARN' || level === 'ERROR') return level;
  throw new SettingError(`LOG_LEVEL must be DEBUG, INFO, WARN or ERROR, got "${value}"`);
}
