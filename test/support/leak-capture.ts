/**
 * What the suite writes where a card number must never go, kept for the scan that runs after it (test/card-scan):
 * every line a test worker prints (logs, local e-mails and messages), every message sent to the local SQS server,
 * and which test files are still running. All of it as files in one directory per run (`inject('leakCapture')`).
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { format } from 'node:util';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Given to every project of the run, the card-scan project included (see global-setup.ts). */
    leakCapture: { dir: string; dynamoEndpoint: string; tableName: string; vaultTableName: string; cvcTableName: string };
  }
}

const SENT = 'sqs-sent.jsonl';
const OUTPUT = /^output-\d+\.log$/;
const RUNNING = /^running-/;

/**
 * Records the body of every message sent to the local SQS server, queues and dead-letter queues alike: a consumer
 * deletes what it handled, so the queues alone would not show it. A second `request` listener sees the same bytes.
 */
export function recordSqsSends(server: Server, dir: string): void {
  server.on('request', (req) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const action = String(req.headers['x-amz-target'] ?? new URLSearchParams(body).get('Action') ?? '');
      if (!/SendMessage/.test(action)) return;
      const parsed = (() => {
        try {
          return JSON.parse(body) as { MessageBody?: string; Entries?: { MessageBody?: string }[] };
        } catch {
          return { MessageBody: body }; // the query protocol: searched as it is
        }
      })();
      const bodies = parsed.Entries ? parsed.Entries.map((e) => e.MessageBody) : [parsed.MessageBody];
      for (const message of bodies) appendFileSync(join(dir, SENT), `${JSON.stringify(message ?? '')}\n`);
    });
  });
}

export const sentMessages = (dir: string): string[] =>
  readFileSync(join(dir, SENT), { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string);

const tapped = Symbol.for('payments.leak-capture');

/** Appends everything this worker prints (console and stdout/stderr alike: Powertools prints through either) to a file. */
export function captureOutput(dir: string): void {
  const record = globalThis as { [tapped]?: boolean };
  if (record[tapped]) return;
  record[tapped] = true;
  const file = join(dir, `output-${process.pid}.log`);
  const keep = (chunk: unknown) => appendFileSync(file, typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array));
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as typeof stream.write;
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const print = console[method].bind(console);
    console[method] = (...args: unknown[]) => (keep(`${format(...args)}\n`), print(...args));
  }
}

/** What a child process (the e2e tests' `npm start`) printed, kept with the workers' own output. */
export const keepOutput = (dir: string, chunk: Buffer): void => appendFileSync(join(dir, `output-${process.pid}.log`), chunk);

export const printedOutput = (dir: string): { file: string; text: string }[] =>
  readdirSync(dir)
    .filter((name) => OUTPUT.test(name))
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));

/** Marks a test file as running until `done` is called: the scan checks it runs after every one has finished. */
export function markRunning(dir: string, testFile: string): () => void {
  const marker = join(dir, `running-${process.pid}-${Date.now()}`);
  writeFileSync(marker, testFile);
  return () => rmSync(marker, { force: true });
}

export const stillRunning = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => RUNNING.test(name))
    .map((name) => readFileSync(join(dir, name), 'utf8'));
