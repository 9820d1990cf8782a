/** One plotly.js trace: plain JSON (`{ type: 'bar', x, y, ... }`), passed to plotly.js unchanged. */
export interface PlotlyTrace {
  type?: string;
  name?: string;
  [key: string]: unknown;
}

/** plotly.js layout: plain JSON. Note plotly.js >= 3 wants titles as `{ text }`, not bare strings. */
export interface PlotlyLayout {
  title?: { text: string; [key: string]: unknown };
  width?: number;
  height?: number;
  [key: string]: unknown;
}

/** A plain plotly.js figure spec, as `Plotly.newPlot(el, fig.data, fig.layout, fig.config)` takes it. */
export interface Figure {
  data: PlotlyTrace[];
  layout?: PlotlyLayout;
  config?: Record<string, unknown>;
}

/** Common options of the figure builders. */
export interface FigureOptions {
  title?: string;
  xTitle?: string;
  yTitle?: string;
  width?: number;
  height?: number;
  /** Extra layout fields, merged last (shallow). */
  layout?: Record<string, unknown>;
}

export interface ScatterSeries {
  x: ArrayLike<number | string>;
  y: ArrayLike<number>;
  name?: string;
  /** Hover text, one per point. */
  text?: string[];
  /** Default 'markers'. */
  mode?: 'markers' | 'lines' | 'lines+markers' | 'markers+text';
}

export interface BarOptions extends FigureOptions {
  /** Horizontal bars (labels on the y axis). Default false. */
  horizontal?: boolean;
  /** How several series combine. Default 'group'. */
  barmode?: 'group' | 'stack' | 'overlay';
}

export interface HistogramOptions extends FigureOptions {
  /** Approximate number of bins (plotly `nbinsx`). */
  bins?: number;
  /** 'overlay' (default, semi-transparent) or 'stack' when there are several series. */
  barmode?: 'overlay' | 'stack' | 'group';
  /** plotly `histnorm`, e.g. 'probability'. Default: counts. */
  histnorm?: '' | 'percent' | 'probability' | 'density' | 'probability density';
}

export interface ShowFigureOptions {
  /** File stem: writes `<reportsDir>/figures/<name>.html` and `.png`. Letters, digits, `-`, `_`, `.` only. */
  name: string;
  /** Notebook name (reports/<notebook>/); default $EO_REPORTS_DIR, else $EO_NOTEBOOK, else 'scratch'. */
  notebook?: string;
  /** PNG size in CSS pixels; default the figure's layout width/height, else 900 x 500. */
  width?: number;
  height?: number;
  /** PNG device scale factor. Default 1. */
  scale?: number;
  /** Render the PNG (needs chromium). Default true. */
  png?: boolean;
  /** Display inline when running in tslab. Default true. */
  display?: boolean;
}

export interface ShownFigure {
  /** Absolute path of the self-contained HTML file. */
  html: string;
  /** Absolute path of the PNG, or null when it was not rendered (chromium missing, or png: false). */
  png: string | null;
  /** Milliseconds spent rendering the PNG (0 when none). */
  renderMs: number;
}

export type TableRow = Record<string, unknown>;

export interface ShowTableOptions {
  title?: string;
  /** Columns in order; default: every key, in order of first appearance. */
  columns?: string[];
  /** Fraction digits for non-integer numbers. Default 3. */
  digits?: number;
  /** Show at most this many rows (a note says how many were left out). Default 200. */
  maxRows?: number;
}

export interface ProgressOptions {
  /** Minimum milliseconds between two printed lines. Default 5000 (env EO_PROGRESS_MS overrides). */
  intervalMs?: number;
  /** Where lines go. Default process.stdout (which tslab forwards to the notebook). */
  write?: (line: string) => void;
}

export interface Progress {
  /** Advance by n (default 1). */
  tick(n?: number): void;
  /** Set the absolute count done. */
  update(done: number): void;
  /** Print the final line (once) and stop. Returns nothing, so `p.done()` ending a cell prints no value. */
  done(): void;
  /** Seconds since progress() was called. */
  elapsed(): number;
}
