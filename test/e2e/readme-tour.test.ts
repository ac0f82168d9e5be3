import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntimeProcess, type RuntimeProcess } from '../support/runtime.ts';

/**
 * The README's tour, run as written on a fresh `npm start` (its own runtime, like test/e2e/local-runtime.test.ts).
 * The convention, also stated in an HTML comment at the top of the tour:
 * - every ```sh block between `<!-- A test runs this tour` and `<!-- end of the tour -->` runs, in order, in one bash
 *   session; the first block's lines `BASE=`, `KEY=`, `STRIPE_FAKE=`, `ADYEN_FAKE=` and `HOOKS=` take this runtime's
 *   values (and a webhook receiver of this test's) instead;
 * - the `# ` lines right after a command show its answer, the last line it prints: every field shown must be there
 *   with that value (the README's values of those variables read as the runtime's), an array as long as shown; `…`
 *   stands for anything (other fields or items, the rest of an id or a text); ids, dates and times match any of their
 *   kind, a `…_ms` field any number. A shown answer that is not JSON is matched line by line, in order.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(root, 'README.md'), 'utf8');
const SETUP_VARIABLES = ['BASE', 'KEY', 'STRIPE_FAKE', 'ADYEN_FAKE', 'HOOKS'] as const;
type SetupVariable = (typeof SETUP_VARIABLES)[number];
/** Long enough for a JVM-loaded machine three times slower than ours: a hang detector, not a speed check. */
const COMMAND_LIMIT_MS = 120_000;

interface TourCommand {
  /** 1-based line of README.md where the command starts. */
  line: number;
  code: string;
  /** The `# ` lines after it, without their `#` and the spaces after it. */
  shown: string[];
}

/** The tour's commands in order; the setup lines of the first block recorded with the README's values. */
function parseTour(readme: string): { commands: TourCommand[]; readmeValues: Partial<Record<SetupVariable, string>> } {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith('<!-- A test runs this tour'));
  const end = lines.findIndex((l) => l.trim() === '<!-- end of the tour -->');
  if (start < 0 || end < start) throw new Error('README.md: the tour markers are missing');
  const commands: TourCommand[] = [];
  const readmeValues: Partial<Record<SetupVariable, string>> = {};
  let inBlock = false;
  let blocks = 0;
  for (let i = start; i < end; i++) {
    const text = lines[i]!;
    if (!inBlock) {
      if (text.trim() === '```sh') [inBlock, blocks] = [true, blocks + 1];
      continue;
    }
    if (text.trim() === '```') {
      inBlock = false;
      continue;
    }
    if (text.trim() === '') continue;
    if (text.startsWith('#')) {
      commands.at(-1)?.shown.push(text.replace(/^#\s?/, ''));
      continue;
    }
    const command: TourCommand = { line: i + 1, code: text, shown: [] };
    while (command.code.endsWith('\\') && i + 1 < end) command.code += '\n' + lines[++i];
    const setup = blocks === 1 ? /^([A-Z_]+)=(\S*)/.exec(command.code) : null;
    if (setup && (SETUP_VARIABLES as readonly string[]).includes(setup[1]!)) readmeValues[setup[1] as SetupVariable] = setup[2]!;
    commands.push(command);
  }
  return { commands, readmeValues };
}

const tour = parseTour(README);

// ---- What the README shows, as a pattern --------------------------------------------------------------------------

type Shown =
  | { kind: 'object'; entries: [string, Shown][] }
  | { kind: 'array'; items: Shown[]; open: boolean }
  | { kind: 'text'; pattern: RegExp; shown: string }
  | { kind: 'value'; value: unknown };

const ELLIPSIS = '…';
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A shown string: `…` matches anything, an id any id of its prefix, a date or a time any of its form. */
function textPattern(shown: string): Shown {
  const id = /^([a-z]+_)[0-9a-z]{26}$/.exec(shown);
  if (id) return { kind: 'text', pattern: new RegExp(`^${id[1]}[0-9a-z]{26}$`), shown };
  if (/^\d{4}-\d{2}-\d{2}$/.test(shown)) return { kind: 'text', pattern: /^\d{4}-\d{2}-\d{2}$/, shown };
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(shown)) {
    return { kind: 'text', pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, shown };
  }
  if (!shown.includes(ELLIPSIS)) return { kind: 'value', value: shown };
  // `pay_01m8…` is the start of an id: only its prefix is kept, the rest is anything
  const parts = shown.replace(/([a-z]+_)[0-9a-z]*…/g, `$1${ELLIPSIS}`).split(ELLIPSIS);
  return { kind: 'text', pattern: new RegExp(`^${parts.map(escapeRegExp).join('.*')}$`, 's'), shown };
}

/** Parses the JSON a README shows, where `…` may stand for fields, items or a value, and inside strings. */
function parseShown(text: string): Shown {
  const tokens: { type: 'punct' | 'string' | 'ellipsis' | 'literal'; text: string }[] = [];
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if ('{}[],:'.includes(c) || c === ELLIPSIS) {
      tokens.push({ type: c === ELLIPSIS ? 'ellipsis' : 'punct', text: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      tokens.push({ type: 'string', text: JSON.parse(text.slice(i, j + 1)) as string });
      i = j + 1;
    } else {
      const m = /^[^\s{}[\],:…"]+/.exec(text.slice(i))!;
      tokens.push({ type: 'literal', text: m[0] });
      i += m[0].length;
    }
  }
  let at = 0;
  const next = () => tokens[at++] ?? { type: 'punct', text: '<end>' };
  const expectPunct = (p: string) => {
    const t = next();
    if (t.type !== 'punct' || t.text !== p) throw new Error(`expected ${p}, found ${t.text} in ${text}`);
  };
  const value = (): Shown => {
    const t = next();
    if (t.type === 'string') return textPattern(t.text);
    if (t.type === 'literal') return { kind: 'value', value: JSON.parse(t.text) };
    if (t.text === '{') {
      const entries: [string, Shown][] = [];
      for (let first = true; tokens[at]?.text !== '}'; first = false) {
        if (!first) expectPunct(',');
        if (tokens[at]?.type === 'ellipsis') {
          at++;
          continue;
        }
        const key = next();
        if (key.type !== 'string') throw new Error(`expected a key, found ${key.text} in ${text}`);
        expectPunct(':');
        entries.push([key.text, value()]);
      }
      at++;
      return { kind: 'object', entries };
    }
    if (t.text === '[') {
      const items: Shown[] = [];
      let open = false;
      for (let first = true; tokens[at]?.text !== ']'; first = false) {
        if (!first) expectPunct(',');
        if (tokens[at]?.type === 'ellipsis') [open, at] = [true, at + 1];
        else items.push(value());
      }
      at++;
      return { kind: 'array', items, open };
    }
    throw new Error(`unexpected ${t.text} in ${text}`);
  };
  const shown = value();
  if (at !== tokens.length) throw new Error(`more after the answer in ${text}`);
  return shown;
}

/** What differs between what the README shows and the actual answer, one line per difference (none: it matches). */
function differences(shown: Shown, actual: unknown, path: string): string[] {
  switch (shown.kind) {
    case 'value':
      return Object.is(shown.value, actual) ? [] : [`${path}: shown ${JSON.stringify(shown.value)}, got ${JSON.stringify(actual)}`];
    case 'text':
      return typeof actual === 'string' && shown.pattern.test(actual) ? [] : [`${path}: shown "${shown.shown}", got ${JSON.stringify(actual)}`];
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${path}: shown an object, got ${JSON.stringify(actual)}`];
      const record = actual as Record<string, unknown>;
      return shown.entries.flatMap(([key, value]) => {
        if (!(key in record)) return [`${path}.${key}: shown, but absent`];
        if (key.endsWith('_ms') && value.kind === 'value' && typeof value.value === 'number') {
          return typeof record[key] === 'number' ? [] : [`${path}.${key}: shown a number, got ${JSON.stringify(record[key])}`];
        }
        return differences(value, record[key], `${path}.${key}`);
      });
    }
    case 'array': {
      if (!Array.isArray(actual)) return [`${path}: shown an array, got ${JSON.stringify(actual)}`];
      if (!shown.open) {
        if (actual.length !== shown.items.length) return [`${path}: shown ${shown.items.length} items, got ${actual.length}`];
        return shown.items.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`));
      }
      // with `…`: the items shown, in that order, among the others
      let from = 0;
      for (const [i, item] of shown.items.entries()) {
        const found = actual.findIndex((a, j) => j >= from && differences(item, a, '').length === 0);
        if (found < 0) return [`${path}: shown item ${i} (${JSON.stringify(item)}) is not there in order`];
        from = found + 1;
      }
      return [];
    }
  }
}

/** What differs between a command's shown answer (its `# ` lines, variables replaced) and what it printed. */
function answerDifferences(shownLines: string[], output: string): string[] {
  const printed = output
    .split('\n')
    .map((l) => l.replace(/\r$/, '')) // a CSV's lines end with CRLF
    .filter((l) => l.trim() !== '');
  if (/^[[{]/.test(shownLines[0]!)) {
    const last = printed.at(-1) ?? '';
    let actual: unknown;
    try {
      actual = JSON.parse(last);
    } catch {
      return [`shown JSON, got: ${last}`];
    }
    // a continuation line's leading spaces only indent it: joined by one space, a text broken at a space reads whole
    return differences(parseShown(shownLines.map((l) => l.trim()).join(' ')), actual, 'answer');
  }
  let from = 0;
  for (const line of shownLines) {
    const pattern = textPattern(line);
    const found = printed.findIndex((p, j) => j >= from && differences(pattern, p, '').length === 0);
    if (found < 0) return [`shown line "${line}" is not printed (in order) in:\n${output}`];
    from = found + 1;
  }
  return [];
}

// ---- One bash session ---------------------------------------------------------------------------------------------

/** A bash process fed one command at a time; each command's output (stdout and stderr) is read up to a marker. */
class BashSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly marker = `__tour_${randomUUID()}__`;
  private buffer = '';
  private waiter: (() => void) | undefined;

  constructor() {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' };
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      this.waiter?.();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      this.waiter?.();
    });
    // Both outputs into one real pipe (through cat): the README's `tee /dev/stderr` cannot open the socket Node gives.
    this.child.stdin.write('exec > >(cat) 2>&1\n');
  }

  /** Runs `code` and resolves with what it printed, once bash has finished it; rejects after `ms` (a hang). */
  run(code: string, ms: number): Promise<string> {
    this.buffer = '';
    this.child.stdin.write(`${code}\nprintf '\\n%s\\n' ${this.marker}\n`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`not finished within ${ms} ms; printed so far:\n${this.buffer}`));
      }, ms);
      this.waiter = () => {
        const at = this.buffer.indexOf(`\n${this.marker}\n`);
        if (at < 0) return;
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(this.buffer.slice(0, at));
      };
      this.waiter();
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

// ---- The tour -----------------------------------------------------------------------------------------------------

describe('the README tour, followed in order on a fresh npm start', () => {
  let runtime: RuntimeProcess | undefined;
  let receiver: Server | undefined;
  let bash: BashSession | undefined;
  const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  const values = {} as Record<SetupVariable, string>;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    receiver = createServer((req, res) => {
      let body = '';
      req
        .on('data', (c: Buffer) => (body += c.toString()))
        .on('end', () => {
          deliveries.push({ headers: req.headers, body });
          res.end();
        });
    });
    await new Promise<void>((listening) => receiver!.listen(0, '127.0.0.1', listening));
    const fake = (name: string, variable: string) => new RegExp(`^\\s+${name}\\s+(http://\\S+)\\s+${variable}`, 'm').exec(runtime!.output())?.[1];
    Object.assign(values, {
      BASE: runtime.url,
      KEY: runtime.apiKey,
      STRIPE_FAKE: fake('Stripe', 'STRIPE_API_BASE_URL'),
      ADYEN_FAKE: fake('Adyen', 'ADYEN_CHECKOUT_BASE_URL'),
      HOOKS: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    });
    bash = new BashSession();
  });

  afterAll(() => {
    bash?.close();
    receiver?.close();
    runtime?.kill();
  });

  it('the tour follows its convention: the setup variables, then commands with the answers they show', () => {
    // Assess
    expect(Object.keys(tour.readmeValues).sort()).toEqual([...SETUP_VARIABLES].sort());
    expect(tour.commands.filter((c) => c.shown.length > 0).length).toBeGreaterThan(20);
    for (const v of SETUP_VARIABLES) expect(values[v], v).toMatch(/\S/);
  });

  /** The README's values of the setup variables, longest first, read as this runtime's in a shown answer. */
  const asRun = (line: string) =>
    Object.entries(tour.readmeValues)
      .sort(([, a], [, b]) => b.length - a.length)
      .reduce((text, [name, readmeValue]) => text.replaceAll(readmeValue, values[name as SetupVariable]), line);

  for (const command of tour.commands) {
    const title = `README.md:${command.line} ${command.code.split('\n')[0]!.slice(0, 90)}`;
    it(
      title,
      async () => {
        // Prepare: a setup line takes this runtime's value
        const setup = /^([A-Z_]+)=/.exec(command.code)?.[1];
        const code = setup && tour.readmeValues[setup as SetupVariable] !== undefined ? `${setup}='${values[setup as SetupVariable]}'` : command.code;
        // Act
        const output = await bash!.run(code, COMMAND_LIMIT_MS);
        // Assess
        if (command.shown.length > 0) expect(answerDifferences(command.shown.map(asRun), output), output).toEqual([]);
      },
      COMMAND_LIMIT_MS + 10_000,
    );
  }

  it('the webhook receiver got the test event, signed the Standard Webhooks way', () => {
    // Assess
    const test = deliveries.find((d) => (JSON.parse(d.body) as { type?: string }).type === 'payment.succeeded');
    expect(test?.headers['webhook-id']).toMatch(/^evt_/);
    expect(test?.headers['webhook-signature']).toMatch(/^v1,/);
  });
});
