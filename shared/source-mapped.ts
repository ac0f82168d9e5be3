import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * Functions run without `--enable-source-maps`: with it, Node reads and decodes the bundle's source map at every cold
 * start (about 8 ms) and maps every stack it formats, including those of the SDK's expected errors. Instead, the stack
 * of an error we log as unexpected is mapped here, from the maps esbuild writes beside each file (infra/bundle.ts),
 * read when the first such error is logged.
 */
const maps = new Map<string, SourceMap | undefined>();

function mapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(file, undefined); // no map beside it (unbundled code, tests): positions stay as they are
    }
  }
  return maps.get(file);
}

/** A bundled file's position in a stack frame: `file:///var/task/index.mjs:1:2345`. */
const BUNDLE_POSITION = /((?:file:\/\/)?\/[^\s()]+\.mjs):(\d+):(\d+)/g;

/** The error, its stack's bundle positions replaced by source ones (`shared/domain/payment-create.ts:120:7`); returned for logging. */
export function withSourceStack<E extends Error>(error: E): E {
  if (typeof error.stack !== 'string') return error;
  error.stack = error.stack.replace(BUNDLE_POSITION, (position: string, file: string, line: string, column: string) => {
    const entry = mapOf(file.startsWith('file:') ? fileURLToPath(file) : file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return position;
    return `${entry.originalSource.replace(/^(?:\.\.\/)+/, '')}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
  return error;
}
