/**
 * `npm run dashboard:picture`: the CloudWatch dashboard as the synthesized stack defines it (its widgets, their
 * places and sizes, titles and series, the alarms' names), drawn in headless Chromium into docs/dashboard.png for
 * docs/operations.md. The series carry SAMPLE DATA (a quiet day, with one provider's approvals dipping): CloudWatch holds the
 * real ones. Needs Chromium (`apt-get install chromium`); CHROMIUM_PATH overrides /usr/bin/chromium. Not a test.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnDashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { chromium } from 'playwright-core';
import { Observability } from './constructs/observability.ts';
import { projectRoot } from './local/lambda.ts';
import { PaymentOrchestrationStack } from './stack.ts';

interface Widget {
  type: 'text' | 'alarm' | 'metric';
  x: number;
  y: number;
  width: number;
  height: number;
  properties: { title?: string; markdown?: string; metrics?: unknown[][] };
}

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new PaymentOrchestrationStack(app, 'PaymentOrchestration');
const observability = stack.node.findAll().find((c): c is Observability => c instanceof Observability)!;
const body = stack.resolve((observability.dashboard.node.defaultChild as CfnDashboard).dashboardBody) as {
  'Fn::Join': [string, unknown[]];
};
// Tokens (ARNs, names) sit inside JSON strings: any placeholder keeps the body valid JSON.
const widgets = (JSON.parse(body['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : 'x')).join('')) as { widgets: Widget[] }).widgets;
const alarmNames = [...observability.composites, ...observability.alarms].map((a) => a.node.id);

/** Deterministic noise, so the picture only changes when the dashboard does. */
let seed = 7;
const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** The visible series of a widget and their labels (hidden inputs of an expression are not drawn). */
function seriesOf(widget: Widget): string[] {
  return (widget.properties.metrics ?? [])
    .map((line) => line.at(-1) as { label?: string; visible?: boolean; expression?: string })
    .filter((options) => options?.visible !== false)
    .flatMap((options) =>
      options.expression?.startsWith('SEARCH') ? ['stripe', 'adyen', 'braintree'].map((p) => `${p} ${options.label}`) : [options.label ?? ''],
    );
}

/** A sample day for a series: a level by what the title measures, some noise, one dip for the approvals. */
function sample(title: string, index: number, points: number): number[] {
  const level = /approval/i.test(title)
    ? 92
    : /latency/i.test(title)
      ? 180 + index * 40
      : /requests/i.test(title)
        ? 1200
        : /rate/i.test(title)
          ? 0.2
          : 3;
  return Array.from({ length: points }, (_, i) => {
    const dip = /approval/i.test(title) && index === 1 && i > points * 0.6 && i < points * 0.75 ? -35 : 0;
    const value = level * (0.85 + 0.3 * random()) + dip;
    return /queue|dead-letter|throttles|unknown/i.test(title) ? Math.round(Math.max(0, value - level)) : value;
  });
}

function chart(widget: Widget, pxWidth: number, pxHeight: number): string {
  const labels = seriesOf(widget);
  const points = 48;
  const series = labels.map((_, i) => sample(widget.properties.title ?? '', i, points));
  const max = Math.max(1, ...series.flat()) * 1.1;
  const [w, h] = [pxWidth - 20, pxHeight - 70];
  const lines = series
    .map((values, i) => {
      const path = values.map((v, j) => `${((j / (points - 1)) * w).toFixed(1)},${(h - (v / max) * h).toFixed(1)}`).join(' ');
      return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.6" points="${path}"/>`;
    })
    .join('');
  const legend = labels
    .slice(0, 8)
    .map((l, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${escape(l)}</span>`)
    .join('');
  return `<svg width="${w}" height="${h}"><line x1="0" y1="${h}" x2="${w}" y2="${h}" stroke="#ccc"/>${lines}</svg><div class="legend">${legend}${labels.length > 8 ? `<span>+${labels.length - 8} more</span>` : ''}</div>`;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const UNIT = { x: 1400 / 24, y: 46 };

function render(widget: Widget): string {
  const style = `left:${widget.x * UNIT.x}px;top:${widget.y * UNIT.y + 40}px;width:${widget.width * UNIT.x - 8}px;height:${widget.height * UNIT.y - 8}px`;
  if (widget.type === 'text') {
    const [heading, ...rest] = (widget.properties.markdown ?? '').split('\n');
    return `<div class="w text" style="${style}"><h1>${escape(heading!.replace(/^#\s*/, ''))}</h1><p>${escape(rest.join(' '))}</p></div>`;
  }
  if (widget.type === 'alarm') {
    const cells = alarmNames.map((n) => `<span class="ok">${escape(n)}</span>`).join('');
    return `<div class="w" style="${style}"><h2>${escape(widget.properties.title ?? '')}</h2><div class="alarms">${cells}</div></div>`;
  }
  return `<div class="w" style="${style}"><h2>${escape(widget.properties.title ?? '')}</h2>${chart(widget, widget.width * UNIT.x - 8, widget.height * UNIT.y - 8)}</div>`;
}

const height = Math.max(...widgets.map((w) => (w.y + w.height) * UNIT.y)) + 50;
const html = `<!doctype html><html><head><style>
body{margin:0;font:12px Arial,sans-serif;background:#f2f3f3;width:1400px;height:${height}px;position:relative}
.banner{position:absolute;top:8px;left:8px;right:8px;color:#8a6d3b;background:#fcf8e3;border:1px solid #faebcc;padding:4px 8px}
.w{position:absolute;background:#fff;border:1px solid #d5dbdb;padding:6px 10px;box-sizing:border-box;overflow:hidden}
h1{font-size:18px;margin:2px 0}h2{font-size:13px;margin:0 0 6px}
.legend span{display:inline-block;margin-right:8px;font-size:11px}.legend i{display:inline-block;width:10px;height:3px;margin-right:3px;vertical-align:middle}
.alarms span{display:inline-block;margin:2px;padding:2px 6px;border-radius:3px;font-size:11px}.ok{background:#e6f4ea;color:#1d6b35}
</style></head><body><div class="banner">Rendered from the synthesized dashboard (widgets, titles, series, alarms); the values are sample data.</div>${widgets.map(render).join('')}</body></html>`;

const out = resolve(projectRoot, 'docs');
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height } });
  await page.setContent(html);
  await page.screenshot({ path: resolve(out, 'dashboard.png'), fullPage: true });
  console.warn(`${widgets.length} widgets, ${alarmNames.length} alarms drawn into docs/dashboard.png`);
} finally {
  await browser.close();
}
