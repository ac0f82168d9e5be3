import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// Metrics printed as `npm start` (and a deployed function) prints them; set before any handler reads its environment.
vi.hoisted(() => void (process.env.POWERTOOLS_METRICS_DISABLED = 'false'));
import type { Gateway } from '../../infra/local/gateway.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { bearer, newMerchant } from '../support/merchant.ts';
import { CARDS, paymentBody } from '../support/payments.ts';
import { printedFromNow } from '../support/printed.ts';
import { startTestGateway } from '../support/runtime.ts';

/** One line of CloudWatch's embedded metric format, as a deployed function prints it to its log. */
interface EmfLine {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [field: string]: unknown;
}

const emfLines = (output: string): EmfLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{"_aws":'))
    .map((line) => JSON.parse(line) as EmfLine);

/**
 * The business metrics as `npm start` prints them (the EMF lines CloudWatch turns into metrics in AWS): an approval,
 * a decline by its code, and a failover from the provider that failed to the next one. The functions run behind the
 * local gateway in this process, as the runtime runs them.
 */
describe('business metrics printed by the local runtime', () => {
  let gateway: Gateway;
  let apiKey: string;
  const printed = printedFromNow();
  beforeAll(async () => {
    [gateway, { apiKey }] = await Promise.all([startTestGateway(), newMerchant()]);
  });
  afterAll(async () => {
    printed.stop();
    await gateway?.close();
  });

  const pay = async (card: string) => {
    const res = await fetch(`${gateway.url}/api/payments/create`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'Content-Type': 'application/json' },
      body: JSON.stringify(paymentBody({}, card)),
    });
    return { status: res.status, body: (await res.json()) as { id?: string; provider?: string; error?: { payment_id: string } } };
  };
  /** The metric `name` printed after `from` (an offset in the output) whose dimensions include `dimensions`. */
  const printedMetric = (from: number, name: string, dimensions: Record<string, string>) =>
    printed.waitFor((output) =>
      emfLines(output.slice(from)).find((line) => line[name] === 1 && Object.entries(dimensions).every(([k, v]) => line[k] === v)),
    );

  it('counts an approval by provider and outcome, in the namespace with its one dimension set', async () => {
    // Prepare
    const from = printed.output().length;
    // Act
    const { status, body } = await pay(CARDS.approved);
    // Assess
    expect(status).toBe(200);
    const line = await printedMetric(from, 'Authorizations', { outcome: 'approved', provider: body.provider! });
    expect(line._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [['service', 'mode', 'provider', 'outcome']],
        Metrics: [{ Name: 'Authorizations', Unit: 'Count' }],
      },
    ]);
    expect(line).toMatchObject({ service: 'payments-api', mode: 'test' });
  });

  it('counts a decline with its decline code', async () => {
    const from = printed.output().length;
    const { status } = await pay(CARDS.genericDecline);
    expect(status).toBe(402);
    const decline = await printedMetric(from, 'Declines', { decline_code: 'generic_decline', mode: 'test' });
    expect(decline._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'mode', 'provider', 'decline_code']]);
    await printedMetric(from, 'Authorizations', { outcome: 'declined', provider: decline.provider as string });
  });

  it('counts a failover from the provider that failed, and the approval at the next one', async () => {
    const from = printed.output().length;
    const { status, body } = await pay(CARDS.processingError);
    expect(status).toBe(200);
    const failover = await printedMetric(from, 'Failovers', { mode: 'test' });
    expect(failover.provider).not.toBe(body.provider);
    await printedMetric(from, 'Authorizations', { outcome: 'failed', provider: failover.provider as string });
    await printedMetric(from, 'Authorizations', { outcome: 'approved', provider: body.provider! });
  });

  it('never carries card data: every dimension comes from a bounded set', () => {
    const lines = emfLines(printed.output());
    expect(lines.length).toBeGreaterThan(0);
    for (const card of Object.values(CARDS)) expect(JSON.stringify(lines)).not.toContain(card.slice(-8));
  });
});
