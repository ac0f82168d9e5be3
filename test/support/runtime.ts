/**
 * HTTP end-to-end helpers.
 *
 * - `startTestGateway()`: the local API Gateway in the test process, on a free port, against the services of the
 *   global setup (cheap: no extra JVM). For HTTP tests of the API.
 * - `startRuntimeProcess()`: the real `npm start` as a child process (its own DynamoDB Local, SQS and provider
 *   fakes), waiting for the printed banner. For tests of the local runtime itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { catalog } from '../../functions/catalog.ts';
import { lazyDashboard } from '../../infra/local/dashboard.ts';
import { startGateway, type Gateway } from '../../infra/local/gateway.ts';
import { projectRoot } from '../../infra/local/lambda.ts';
import { inject } from 'vitest';
import { keepOutput } from './leak-capture.ts';

/** The dashboard's build, shared by the test gateways of this worker and made on the first request for it. */
const dashboard = lazyDashboard();

/**
 * In-process gateway on a free port (process.env already holds the services' env, see env.ts), the dashboard too. Its
 * clients seem to come from an address of their own in 198.18.0.0/15 (kept for tests, RFC 2544): the per-address
 * limits of the hosted pages count this gateway's requests only, not those of every file running beside it.
 */
export function startTestGateway(): Promise<Gateway> {
  return startGateway({ port: 0, catalog, log: false, dashboard, clientIp: `198.${18 + randomInt(2)}.${randomInt(256)}.${randomInt(1, 255)}` });
}

export interface RuntimeProcess {
  child: ChildProcess;
  /** e.g. `http://localhost:41234` */
  url: string;
  apiKey: string;
  merchantId: string;
  /** PID of the DynamoDB Local JVM the runtime started. */
  dynamoPid: number;
  /** Everything printed so far (stdout + stderr). */
  output(): string;
  /** Resolves with what `find` returns once it returns something for the output so far (checked on every chunk). */
  waitForOutput<T>(find: (output: string) => T | undefined, ms?: number): Promise<T>;
  /** The exit code (or the signal name) once the process, and everything sharing its output, has exited. */
  exited: Promise<number | NodeJS.Signals>;
  /** Send a signal to the process group (what a terminal's Ctrl-C does) or, with `only: true`, to the child alone. */
  signal(signal: NodeJS.Signals, options?: { only?: boolean }): void;
  /** Last resort: SIGKILL the whole process group (DynamoDB Local included). */
  kill(): void;
}

export interface RuntimeProcessOptions {
  /** Default `npm start`. */
  command?: string[];
  env?: Record<string, string>;
  /** How long to wait for the banner (ms). Default 270 s: a JVM start on a 2-core machine three times busier than usual. */
  readyTimeoutMs?: number;
}

/**
 * Spawn the local runtime (`npm start`) in its own process group and wait for the whole banner. Every port it opens
 * is a free one (PORT=0, and 0 for each provider fake), so it never collides with a developer's `npm start` or
 * another test's runtime. The child gets a clean environment: none of the test run's service endpoints, nor a
 * provider base URL or fake setting of the developer's shell, leak into it.
 */
export async function startRuntimeProcess(options: RuntimeProcessOptions = {}): Promise<RuntimeProcess> {
  const [cmd, ...args] = options.command ?? ['npm', 'start'];
  const env: Record<string, string> = {};
  const notInherited =
    /^(VITEST|TEST$|NODE_ENV$|APP_|TABLE_NAME$|AWS_|POWERTOOLS_|LOG_LEVEL$|.*_QUEUE_URL$|STRIPE_API_BASE_URL$|ADYEN_CHECKOUT_BASE_URL$|BRAINTREE_GATEWAY_URL$|PROVIDER_FAKES$|.*_FAKE_PORT$)/;
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !notInherited.test(k)) env[k] = v;
  const freePorts = { PORT: '0', DEMO_PORT: '0', STRIPE_FAKE_PORT: '0', ADYEN_FAKE_PORT: '0', BRAINTREE_FAKE_PORT: '0' };
  Object.assign(env, freePorts, { NO_COLOR: '1' }, options.env);

  const child = spawn(cmd!, args, { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters = new Set<() => void>();
  const { dir: leakCaptureDir } = inject('leakCapture');
  const onData = (chunk: Buffer) => {
    keepOutput(leakCaptureDir, chunk);
    output += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  // 'close' (not 'exit'): every process holding the output pipes is gone, e.g. the runtime under `npm start`
  // when npm itself dies of the signal first, and everything it printed has been read.
  let closed = false;
  const exited = new Promise<number | NodeJS.Signals>((done) => child.once('close', (code, signal) => done(code ?? signal ?? -1)));
  child.once('close', () => {
    closed = true;
    for (const w of waiters) w();
  });

  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // group already gone
    }
  };
  const kill = () => group('SIGKILL');

  // Up to its last line, so that the whole banner (the provider fakes' block too) has been read.
  const banner =
    /API\s+(http:\/\/\S+)[\s\S]*DynamoDB Local[^\n]*\(pid (\d+)\)[\s\S]*Demo merchant\s+(mer_\S+)[\s\S]*Test API key\s+(sk_test_\S+)[\s\S]*Ctrl-C to stop\./;
  try {
    const m = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`local runtime not ready after ${options.readyTimeoutMs ?? 270_000} ms:\n${output}`));
      }, options.readyTimeoutMs ?? 270_000);
      function check() {
        const found = banner.exec(output);
        if (found || closed) {
          clearTimeout(timer);
          waiters.delete(check);
          if (found) resolve(found);
          else reject(new RuntimeExited(child.exitCode ?? child.signalCode ?? -1, output));
        }
      }
      waiters.add(check);
      check();
    });
    return {
      child,
      url: m[1]!,
      dynamoPid: Number(m[2]),
      merchantId: m[3]!,
      apiKey: m[4]!,
      output: () => output,
      waitForOutput: <T>(find: (output: string) => T | undefined, ms = 30_000) =>
        new Promise<T>((resolve, reject) => {
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`not printed within ${ms} ms:\n${output.slice(-4000)}`));
          }, ms);
          function check() {
            const found = find(output);
            if (found === undefined && !closed) return;
            clearTimeout(timer);
            waiters.delete(check);
            if (found === undefined) reject(new RuntimeExited(child.exitCode ?? child.signalCode ?? -1, output));
            else resolve(found);
          }
          waiters.add(check);
          check();
        }),
      exited,
      signal: (signal, opts) => (opts?.only ? child.kill(signal) : group(signal)),
      kill,
    };
  } catch (err) {
    kill();
    throw err;
  }
}

/** The runtime ended before its banner: its exit code (or signal) and everything it printed. */
export class RuntimeExited extends Error {
  constructor(
    readonly code: number | NodeJS.Signals,
    readonly output: string,
  ) {
    super(`local runtime exited (${code}) before it was ready:\n${output}`);
  }
}

/** Whether a process is still running (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..." — state Z = exited, not yet reaped.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
