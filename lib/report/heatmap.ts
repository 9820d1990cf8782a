import { baseLayout } from './figures';
import type { Figure, FigureOptions } from './types';

/** Sequential scale from white (0) to dark blue (max), so that dark cells are large counts. */
export const DEFAULT_HEATMAP_SCALE: [number, string][] = [[0, '#ffffff'], [0.25, '#c6dbef'], [0.5, '#6baed6'], [0.75, '#2171b5'], [1, '#08306b']];

export interface HeatmapOptions extends FigureOptions {
  /** plotly colorscale name or spec. Default white → dark blue (plotly's own 'Blues' runs dark → light). */
  colorscale?: string | [number, string][];
  /** Write each cell's value in it. Default true. */
  annotate?: boolean;
  /** Fraction digits of the cell labels. Default 0. */
  digits?: number;
  /** Put the first row at the top (matrix reading order). Default true. */
  rowsTopDown?: boolean;
}

/**
 * Heatmap of a matrix: `z[i][j]` is the cell of row label `rows[i]` and column label `cols[j]` (e.g. a confusion
 * matrix with expected labels as rows and predicted labels as columns).
 */
export function heatmapFigure(z: ArrayLike<ArrayLike<number>>, rows: ArrayLike<string>, cols: ArrayLike<string>, opts: HeatmapOptions = {}): Figure {
  const zz = Array.from(z, (r) => Array.from(r));
  const y = Array.from(rows);
  const x = Array.from(cols);
  if (zz.length !== y.length || zz.some((r) => r.length !== x.length)) throw new RangeError(`heatmapFigure: z is ${zz.length}×${zz[0]?.length ?? 0}, labels ${y.length}×${x.length}`);
  const digits = opts.digits ?? 0;
  const max = Math.max(0, ...zz.flat());
  const layout = baseLayout(opts);
  layout.xaxis = { ...(layout.xaxis as object), type: 'category', side: 'bottom' };
  layout.yaxis = { ...(layout.yaxis as object), type: 'category', autorange: opts.rowsTopDown === false ? true : 'reversed' };
  if (opts.annotate ?? true) {
    layout.annotations = zz.flatMap((r, i) =>
      r.map((v, j) => ({ x: x[j], y: y[i], text: v.toFixed(digits), showarrow: false, font: { color: max > 0 && v > max / 2 ? 'white' : 'black' } })),
    );
  }
  return {
    data: [{ type: 'heatmap', z: zz, x, y, colorscale: opts.colorscale ?? DEFAULT_HEATMAP_SCALE, hoverongaps: false, hovertemplate: '%{y} → %{x}: %{z}<extra></extra>' }],
    layout: { ...layout, ...(opts.layout ?? {}) },
  };
}
