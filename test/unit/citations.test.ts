import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The code and the docs cite the project's own rulebook, docs/api.md, by section: never a document the repository
 * does not hold, which a maintainer could not look up. The name of that outside document is built from two halves so
 * that this file does not mention it itself; no other file is exempt.
 */
const OUTSIDE_DOCUMENT = ['DECI', 'SIONS'].join('');

/** A tracked file's text, or undefined when the work tree does not hold it as a file (deleted, a submodule). */
function textOf(path: string): string | undefined {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch (error) {
    if (['ENOENT', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

describe('citations', () => {
  it('no git-tracked file mentions the outside rulebook', () => {
    // Prepare
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .split('\0')
      .filter(Boolean);
    // Act
    const citing = tracked.filter((path) => textOf(path)?.includes(OUTSIDE_DOCUMENT));
    // Assess
    expect(tracked.length).toBeGreaterThan(100);
    expect(citing, `cite docs/api.md (a section) instead of ${OUTSIDE_DOCUMENT} in these files`).toEqual([]);
  });
});
