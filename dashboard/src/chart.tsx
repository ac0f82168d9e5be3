/**
 * Charts drawn by uPlot (about 20 KB gzipped, loaded with Home only). A chart is a picture for sighted readers; the
 * same numbers follow it as a table, so a screen reader and the keyboard get them too.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartProps {
  title: string;
  /** category names, or ISO dates for a time series */
  labels: string[];
  values: number[];
  format(value: number): string;
  kind: 'bars' | 'days';
  /** counts: ticks on whole numbers only */
  integer?: boolean;
  /** what an empty chart says */
  emptyText?: string;
}

const COLOUR = '#3056d3';

function options(props: ChartProps, width: number): uPlot.Options {
  const valueAxis: uPlot.Axis = {
    values: (_u, ticks) => ticks.map(props.format),
    size: 70,
    ...(props.integer ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] } : {}),
  };
  const series: uPlot.Series = {
    label: props.title,
    stroke: COLOUR,
    fill: 'rgba(48, 86, 211, 0.25)',
    width: 2,
    points: { show: props.kind === 'days' },
  };
  if (props.kind === 'days') return { width, height: 220, legend: { show: false }, series: [{}, series], axes: [{}, valueAxis] };
  const n = props.labels.length;
  return {
    width,
    height: 220,
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
    series: [{}, { ...series, paths: uPlot.paths.bars!({ size: [0.6, 80] }), fill: COLOUR }],
    axes: [{ splits: () => props.labels.map((_, i) => i), values: (_u, ticks) => ticks.map((t) => props.labels[t] ?? '') }, valueAxis],
  };
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || props.values.length === 0) return;
    const xs = props.kind === 'days' ? props.labels.map((d) => new Date(`${d}T00:00:00`).getTime() / 1000) : props.labels.map((_, i) => i);
    const chart = new uPlot(options(props, element.clientWidth || 320), [xs, props.values], element);
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth || 320, height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.labels.join(), props.values.join()]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {props.values.length === 0 ? (
        <p class="empty">{props.emptyText ?? 'Nothing in this period.'}</p>
      ) : (
        <div ref={box} class="chart-box" aria-hidden="true" />
      )}
      {props.values.length > 0 && (
        <details>
          <summary>{props.title}: the numbers</summary>
          <table>
            <tbody>
              {props.labels.map((l, i) => (
                <tr key={l}>
                  <th scope="row">{l}</th>
                  <td>{props.format(props.values[i] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}
