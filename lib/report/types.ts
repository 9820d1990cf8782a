import type { DataFrame } from 'danfojs-node';
import type { RunScoreParts } from '../metrics/run-parts';

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
  /** Legend position; 'auto' puts it below the plot when series names are long (see legendPlacement). Default 'auto'. */
  legend?: LegendPlacement;
}

/** Where a legend goes: 'auto' (below when names are long, else right), 'right' (plotly's default) or 'below'. */
export type LegendPlacement = 'auto' | 'right' | 'below';

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
  /** Display inline when running in tslab (interactive in a live kernel, the PNG in a headless run; see figureDisplayMode). Default true. */
  display?: boolean;
}

/** 'live': interactive plotly HTML (a person's Jupyter kernel); 'static': the PNG (headless runs, outside tslab). */
export type FigureDisplayMode = 'live' | 'static';

export interface ShownFigure {
  /** Absolute path of the self-contained HTML file. */
  html: string;
  /** Absolute path of the PNG, or null when it was not rendered (chromium missing, or png: false). */
  png: string | null;
  /** Milliseconds spent rendering the PNG (0 when none). */
  renderMs: number;
}

export type TableRow = Record<string, unknown>;

/** A table: plain rows (one object per row) or a danfojs DataFrame (see toDataFrame). */
export type TableInput = readonly TableRow[] | DataFrame;

/**
 * Which column values to mark as best: `true` marks the largest value of every numeric column, a list names
 * columns where larger is better, a record says 'max' or 'min' per column.
 */
export type BestSpec = boolean | readonly string[] | Readonly<Record<string, 'max' | 'min'>>;

/** Where a table's numbers came from, shown under it so that a reader can re-derive them. */
export interface TableSource {
  /** TREC run files the rows were evaluated from (absolute paths are shown relative to the repository). */
  runFiles?: readonly string[];
  /** The qrels file(s) they were evaluated against. */
  qrels?: string | readonly string[];
  /** Settings that produced the numbers, e.g. `{ k1: 0.9, b: 0.4, depth: 100, seed: 42 }`. */
  settings?: Readonly<Record<string, unknown>>;
  /** Free text, one more line (e.g. "sample snapshot: 200 datasets"). */
  note?: string;
}

export interface ShowTableOptions {
  /** Caption above the table. Default none. */
  title?: string;
  /** Columns in order; default: every key, in order of first appearance. */
  columns?: string[];
  /** Fraction digits for non-integer numbers. Default 3. */
  digits?: number;
  /** Show at most this many rows (a note says how many were left out). Default 200. */
  maxRows?: number;
  /** Mark each column's best value (bold in HTML, `*` in text). Default: nothing marked. */
  best?: BestSpec;
  /** Run/qrels files and settings the numbers came from, printed as a footer. Default: no footer. */
  source?: TableSource;
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
  /** Seconds since progressPrinter() was called. */
  elapsed(): number;
}

/** What the run explorer knows about one query besides its runs (all optional: the page shows what it gets). */
export interface ExplorerQueryInfo {
  text?: string;
  /** Query style of the benchmark of real query styles (research question, keywords, identifier, misspelled). */
  style?: string;
  /** Stratum by number of labelled datasets; default: computed from the qrels (lib/bench DEFAULT_STRATA). */
  stratum?: string;
}

/** A dataset as the explorer shows it. */
export interface ExplorerDatasetInfo {
  title?: string;
  daac?: string;
}

/** A result's score parts in the run explorer: what a run's parts sidecar holds (lib/metrics/run-parts.ts). */
export type ExplorerScoreParts = RunScoreParts;

/** Extra data for the run explorer of one notebook folder; every field optional, keyed by query / dataset id. */
export interface ExplorerMeta {
  queries?: Record<string, ExplorerQueryInfo>;
  datasets?: Record<string, ExplorerDatasetInfo>;
  /** Score parts by system id, then query id, then dataset id. */
  parts?: Record<string, Record<string, Record<string, ExplorerScoreParts>>>;
  /** Judge labels (e.g. an LLM judge's grade) by query id, then dataset id. */
  judge?: Record<string, Record<string, string | number>>;
  /** System labels by run id (default: the id). */
  labels?: Record<string, string>;
}

export interface ExplorerOptions {
  /** Results shown per system and query. Default 10. */
  topK?: number;
  /** Ranks looked up for rank moves (a dataset below this in the other system shows as "new"). Default 100. */
  depth?: number;
  /** Page title. Default `Run explorer: <notebook>`. */
  title?: string;
}
