import type { BarOptions, Figure, FigureOptions, HistogramOptions, LegendPlacement, PlotlyLayout, PlotlyTrace, ScatterSeries } from './types';
import type { MetricName, PerQueryMetrics } from '../metrics/types';

/** Layout shared by the builders: titles as `{ text }` (plotly.js >= 3), white background, automargin axes. */
export function baseLayout(opts: FigureOptions = {}): PlotlyLayout {
  const layout: PlotlyLayout = {
    paper_bgcolor: 'white',
    plot_bgcolor: 'white',
    margin: { l: 60, r: 20, t: opts.title ? 50 : 20, b: 50 },
    xaxis: { title: opts.xTitle ? { text: opts.xTitle } : undefined, automargin: true, gridcolor: '#e5e5e5', zeroline: false },
    yaxis: { title: opts.yTitle ? { text: opts.yTitle } : undefined, automargin: true, gridcolor: '#e5e5e5', zeroline: false },
    font: { family: 'DejaVu Sans, Liberation Sans, Arial, sans-serif', size: 13 },
  };
  if (opts.title) layout.title = { text: opts.title };
  if (opts.width) layout.width = opts.width;
  if (opts.height) layout.height = opts.height;
  return { ...layout, ...(opts.layout ?? {}) };
}

/** Scatter / line plot of one or more series. */
export function scatterFigure(series: ScatterSeries | ScatterSeries[], opts: FigureOptions = {}): Figure {
  const list = Array.isArray(series) ? series : [series];
  const data: PlotlyTrace[] = list.map((s) => ({
    type: 'scatter',
    mode: s.mode ?? 'markers',
    x: Array.from(s.x),
    y: Array.from(s.y),
    ...(s.name !== undefined ? { name: s.name } : {}),
    ...(s.text ? { text: s.text, hoverinfo: 'text+x+y' } : {}),
  }));
  const layout = baseLayout(opts);
  if (list.length < 2 || list.every((s) => s.name === undefined)) layout.showlegend = false;
  return withLegendLayout({ data, layout }, opts.legend);
}

/**
 * Bar chart: one bar per label. `values` is one series, or `{ seriesName: values }` for grouped/stacked bars.
 */
export function barFigure(labels: ArrayLike<string | number>, values: ArrayLike<number> | Record<string, ArrayLike<number>>, opts: BarOptions = {}): Figure {
  const cats = Array.from(labels);
  const series: [string | undefined, number[]][] = isArrayLike(values)
    ? [[undefined, Array.from(values)]]
    : Object.entries(values).map(([k, v]) => [k, Array.from(v)]);
  const data: PlotlyTrace[] = series.map(([name, vals]) => ({
    type: 'bar',
    ...(opts.horizontal ? { x: vals, y: cats, orientation: 'h' } : { x: cats, y: vals }),
    ...(name !== undefined ? { name } : {}),
  }));
  const layout = baseLayout(opts);
  layout.barmode = opts.barmode ?? 'group';
  if (series.length < 2) layout.showlegend = false;
  if (opts.horizontal) layout.yaxis = { ...(layout.yaxis as object), autorange: 'reversed', type: 'category' };
  else layout.xaxis = { ...(layout.xaxis as object), type: 'category' };
  return withLegendLayout({ data, layout: { ...layout, ...(opts.layout ?? {}) } }, opts.legend);
}

/** Histogram of one series, or `{ seriesName: values }` overlaid. */
export function histogramFigure(values: ArrayLike<number> | Record<string, ArrayLike<number>>, opts: HistogramOptions = {}): Figure {
  const series: [string | undefined, number[]][] = isArrayLike(values)
    ? [[undefined, Array.from(values)]]
    : Object.entries(values).map(([k, v]) => [k, Array.from(v)]);
  const data: PlotlyTrace[] = series.map(([name, vals]) => ({
    type: 'histogram',
    x: vals,
    ...(name !== undefined ? { name } : {}),
    ...(opts.bins ? { nbinsx: opts.bins } : {}),
    ...(opts.histnorm ? { histnorm: opts.histnorm } : {}),
    ...(series.length > 1 && (opts.barmode ?? 'overlay') === 'overlay' ? { opacity: 0.6 } : {}),
  }));
  const layout = baseLayout({ yTitle: opts.histnorm ? opts.histnorm : 'count', ...opts });
  layout.barmode = opts.barmode ?? 'overlay';
  if (series.length < 2) layout.showlegend = false;
  return withLegendLayout({ data, layout: { ...layout, ...(opts.layout ?? {}) } }, opts.legend);
}

function isArrayLike(v: unknown): v is ArrayLike<number> {
  return Array.isArray(v) || ArrayBuffer.isView(v);
}

/** Approximate pixel width of one legend character at the default 13 px font (DejaVu Sans averages ~7 px). */
const LEGEND_CHAR_PX = 7;
/** Symbol, padding and gaps of one vertical legend entry, in pixels. */
const LEGEND_ENTRY_PAD_PX = 45;
/** A legend on the right may take at most this share of the figure width before it goes below. */
const LEGEND_MAX_WIDTH_SHARE = 0.2;

/** Names of the traces that appear in the legend (named, not hidden from it). */
export function legendNames(fig: Figure): string[] {
  return fig.data.filter((t) => typeof t.name === 'string' && t.name !== '' && t.showlegend !== false).map((t) => t.name as string);
}

/**
 * Where a figure's legend goes. 'auto': below the plot, horizontal, when a vertical legend on the right would take
 * more than a fifth of the figure width (long series names, e.g. "Hybrid (BM25 + Cosine fine-tuned) vs BM25"),
 * so that names never squeeze the plot area; else plotly's default on the right.
 */
export function legendPlacement(fig: Figure, placement: LegendPlacement = 'auto'): 'right' | 'below' | 'none' {
  const layout = fig.layout ?? {};
  const names = legendNames(fig);
  const shown = layout.showlegend === true || (layout.showlegend !== false && names.length >= 2);
  if (!shown || names.length === 0) return 'none';
  if (placement !== 'auto') return placement;
  const width = typeof layout.width === 'number' ? layout.width : 900;
  const longest = Math.max(...names.map((n) => n.length));
  return LEGEND_ENTRY_PAD_PX + LEGEND_CHAR_PX * longest > LEGEND_MAX_WIDTH_SHARE * width ? 'below' : 'right';
}

/** The layout fields that put a legend horizontally below the plot, under the x-axis title (container-anchored, so plotly grows the bottom margin to fit it). */
export const LEGEND_BELOW: Readonly<Record<string, unknown>> = Object.freeze({ orientation: 'h', x: 0, xanchor: 'left', yref: 'container', y: 0, yanchor: 'bottom' });

/**
 * The figure with its legend placed (see legendPlacement). A layout that already sets `legend` is left as it is;
 * the figure given is not changed.
 */
export function withLegendLayout(fig: Figure, placement: LegendPlacement = 'auto'): Figure {
  if (fig.layout?.legend !== undefined) return fig;
  if (legendPlacement(fig, placement) !== 'below') return fig;
  return { ...fig, layout: { ...(fig.layout ?? {}), legend: { ...LEGEND_BELOW } } };
}

/**
 * Per-query scatter of one metric for two systems evaluated on the same queries (default reciprocal rank), with
 * the diagonal dotted and each point's hover text (e.g. the query).
 */
export function perQueryScatterFigure(
  a: PerQueryMetrics, b: PerQueryMetrics, opts: { xTitle: string; yTitle: string; metric?: MetricName; text?: (queryId: string) => string; title?: string },
): Figure {
  const metric = opts.metric ?? 'MRR';
  return scatterFigure({ x: a.values[metric], y: b.values[metric], ...(opts.text ? { text: a.queryIds.map(opts.text) } : {}) }, {
    title: opts.title ?? (metric === 'MRR' ? 'Reciprocal rank per test query' : `${metric} per test query`), xTitle: opts.xTitle, yTitle: opts.yTitle,
    layout: { shapes: [{ type: 'line', x0: 0, y0: 0, x1: 1, y1: 1, line: { dash: 'dot', color: '#999' } }] },
  });
}
