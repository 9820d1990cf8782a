import type { BarOptions, Figure, FigureOptions, HistogramOptions, PlotlyLayout, PlotlyTrace, ScatterSeries } from './types';

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
  return { data, layout };
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
  return { data, layout: { ...layout, ...(opts.layout ?? {}) } };
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
  return { data, layout: { ...layout, ...(opts.layout ?? {}) } };
}

function isArrayLike(v: unknown): v is ArrayLike<number> {
  return Array.isArray(v) || ArrayBuffer.isView(v);
}
