/**
 * axe-core in a page: its source evaluated through the DevTools protocol (not a script tag, which the page's CSP
 * would refuse), then run on the whole document. Answers the violations a user would hit hardest (serious, critical).
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const found = await page.evaluate(async () => {
    const results = await (window as unknown as { axe: typeof axe }).axe.run(document);
    return results.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
