/** The bars of a column profile's small histogram, in SVG coordinates (y grows downwards). */
import { Cell, Histogram } from './types';

export interface IBar {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The tooltip: the bin's range or value, and its count. */
  label: string;
}

const GAP = 1;

function valueText(value: Cell): string {
  return value === null ? 'null' : String(value);
}

/** One bar per bin or value, scaled to the tallest; a non-empty bin is at least 1 unit high. */
export function histogramBars(histogram: Histogram, width: number, height: number): IBar[] {
  const bins =
    histogram.kind === 'numeric'
      ? histogram.counts.map((count, i) => ({
          count,
          label: `${histogram.edges[i]} – ${histogram.edges[i + 1]}: ${count}`
        }))
      : histogram.values.map(({ value, count }) => ({ count, label: `${valueText(value)}: ${count}` }));
  if (!bins.length) {
    return [];
  }
  const tallest = Math.max(...bins.map(bin => bin.count));
  const step = width / bins.length;
  return bins.map((bin, i) => {
    const scaled = tallest > 0 ? (bin.count / tallest) * height : 0;
    const barHeight = bin.count > 0 ? Math.max(1, scaled) : 0;
    return {
      x: i * step,
      y: height - barHeight,
      width: Math.max(step - GAP, 1),
      height: barHeight,
      label: bin.label
    };
  });
}
