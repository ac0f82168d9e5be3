/** Home: the period's volume, approval rate by provider and declines by code (docs/api.md "Analytics"). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Chart } from '../chart.tsx';
import { label, money, percent } from '../format.ts';
import { Failure, Heading, Loading, Money, useLoad } from '../ui.tsx';

type Period = '24h' | '7d' | '30d' | '90d';

async function loadHome(period: Period) {
  const overview = await api.GET('/api/analytics', { query: { period } });
  const query = { period, currency: overview.currency };
  const [revenue, providers, failed] = await Promise.all([
    api.GET('/api/analytics/revenue', { query }),
    api.GET('/api/analytics/providers', { query }),
    // Declines by code: the latest 100 failed payments (the analytics endpoints do not count decline codes).
    api.GET('/api/payments/list', { query: { status: 'failed', limit: 100 } }),
  ]);
  const declines = new Map<string, number>();
  for (const p of failed.data) declines.set(p.decline_code ?? 'unknown', (declines.get(p.decline_code ?? 'unknown') ?? 0) + 1);
  return { overview, revenue, providers: providers.data, declines: [...declines].sort((a, b) => b[1] - a[1]) };
}

export function Home() {
  const [period, setPeriod] = useState<Period>('30d');
  const loaded = useLoad(() => loadHome(period), [period]);
  const data = loaded.data;
  return (
    <>
      <Heading
        actions={
          <label>
            Period
            <select value={period} onChange={(e) => setPeriod(e.currentTarget.value as Period)}>
              <option value="24h">Last 24 hours</option>
              <option value="7d">Last 7 days</option>
              <option value="30d">Last 30 days</option>
              <option value="90d">Last 90 days</option>
            </select>
          </label>
        }
      >
        Home
      </Heading>
      {loaded.error && <Failure message={loaded.error} retry={loaded.reload} />}
      {!data && !loaded.error && <Loading />}
      {data && (
        <>
          <dl class="figures">
            <div>
              <dt>Volume</dt>
              <dd>
                <Money amount={data.overview.volume} currency={data.overview.currency} />
              </dd>
            </div>
            <div>
              <dt>Payments</dt>
              <dd>{data.overview.transactions}</dd>
            </div>
            <div>
              <dt>Approval rate</dt>
              <dd>{percent(data.overview.approval_rate)}</dd>
            </div>
          </dl>
          <div class="charts">
            <Chart
              kind="days"
              title="Volume by day"
              labels={data.revenue.by_day.map((d) => d.date)}
              values={data.revenue.by_day.map((d) => d.amount)}
              format={(v) => money(v, data.overview.currency)}
            />
            <Chart
              kind="bars"
              title="Approval rate by provider"
              labels={data.providers.filter((p) => p.attempts > 0).map((p) => label(p.provider))}
              values={data.providers.filter((p) => p.attempts > 0).map((p) => p.approval_rate)}
              format={percent}
            />
            <Chart
              kind="bars"
              title="Declines by code (latest 100)"
              emptyText="No declined payments."
              integer
              labels={data.declines.map(([code]) => code)}
              values={data.declines.map(([, n]) => n)}
              format={(v) => String(Math.round(v))}
            />
          </div>
        </>
      )}
    </>
  );
}
