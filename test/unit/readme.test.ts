import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The README is the door: short, its client example the checked file, its links alive. */
describe('the README', () => {
  const readme = read('README.md');

  it('stays within 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('shows client/examples/checkout.ts as it is, the file the typecheck compiles', () => {
    // Prepare
    const example = read('client/examples/checkout.ts');
    // Act
    const shown = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('client/examples/checkout.ts')))?.[1];
    // Assess
    expect(shown).toBe(example);
  });

  it('links only to files that exist', () => {
    const links = [...readme.matchAll(/\]\(((?:docs|client)\/[^)#]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(existsSync(new URL(link, root)), link).toBe(true);
  });
});
