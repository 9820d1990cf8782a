// Notebook 05, section 5 ("Try it"): re-fuse the strongest hybrid at the reader's α from the cached score vectors.
import { EoError } from '../../errors';
import type { BenchSplitView } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { assertConvexAlpha } from '../../fuse/alpha';
import { evaluateRun, summarize } from '../../metrics/metrics';
import type { MetricRow } from '../../metrics/types';
import { fuseSplitAtAlpha, type HybridStudy, type SplitScores } from '../../study/study';
import { scatterFigure, withLegendLayout } from '../../report/figures';
import type { Figure, TableRow } from '../../report/types';

/** What the α knob of notebook 05 shows: the hybrid at the chosen α beside the analytic and grid α, and MAP vs α. */
export interface AlphaTryIt {
  alpha: number;
  /** Test metrics at the chosen α, the analytic α (Eq. 7) and the grid α, with how far each is from the analytic row. */
  rows: TableRow[];
  /** MAP on the test split at each α of the grid (and at the chosen, analytic and grid α). */
  curve: { alpha: number; MAP: number }[];
  /** MAP vs α with the analytic, grid and chosen α marked. */
  figure: Figure;
  /** Whether the chosen α is the analytic one (the reported Table 2 row). */
  isReported: boolean;
}

/**
 * Re-fuse one hybrid at any α from the cached score vectors of both scorers (test split), for the reader's knob:
 * metrics at `alpha` beside the analytic and grid α, and the test MAP over the α grid with the three α marked.
 * α is chosen on the training split in the paper's protocol; the test curve is for looking, never for choosing.
 */
export function alphaTryIt(opts: {
  corpus: Corpus; test: BenchSplitView; hybrid: HybridStudy; semantic: SplitScores; lexical: SplitScores; alpha: number;
  /** α values of the curve. Default 0, 0.05, …, 1 (the grid search's). */
  grid?: readonly number[];
}): AlphaTryIt {
  const { hybrid } = opts;
  assertConvexAlpha(opts.alpha, 'alphaTryIt');
  const analytic = hybrid.analyticRecord.alpha;
  const gridAlpha = hybrid.gridRecord.alpha;
  const evalAt = (alpha: number): MetricRow => summarize(`α = ${alpha.toFixed(3)}`, evaluateRun(
    fuseSplitAtAlpha({ corpus: opts.corpus, split: opts.test, semantic: opts.semantic.test, lexical: opts.lexical.test, alpha }), opts.test.qrels));
  const grid = opts.grid ?? Array.from({ length: 21 }, (_, i) => Math.round(i * 5) / 100);
  const alphas = [...new Set([...grid, opts.alpha, analytic, gridAlpha])].sort((a, b) => a - b);
  const byAlpha = new Map(alphas.map((a) => [a, evalAt(a)]));
  const ref = byAlpha.get(analytic)!;
  const row = (what: string, a: number): TableRow => {
    const m = byAlpha.get(a)!;
    return { α: a, 'α from': what, 'R@10': m['R@10'], 'R@20': m['R@20'], 'R@100': m['R@100'], MAP: m.MAP, MRR: m.MRR, 'ΔMAP vs analytic': m.MAP - ref.MAP };
  };
  const rows = [row('your choice', opts.alpha), row('analytic (Eq. 7, train)', analytic), row('grid (train)', gridAlpha)];
  const curve = alphas.map((a) => ({ alpha: a, MAP: byAlpha.get(a)!.MAP }));
  const mark = (a: number, name: string, color: string, dash: string) => ({
    type: 'scatter', mode: 'lines', x: [a, a], y: [0, Math.max(...curve.map((p) => p.MAP)) * 1.05], name: `${name} α = ${a.toFixed(3)}`, line: { color, dash },
  });
  const figure = scatterFigure([{ x: curve.map((p) => p.alpha), y: curve.map((p) => p.MAP), name: 'MAP on the test split', mode: 'lines+markers' }], {
    title: `${hybrid.semanticLabel} + BM25: test MAP vs α`, xTitle: 'α (weight of the semantic scorer)', yTitle: 'MAP (test)', legend: 'below',
  });
  figure.data.push(mark(analytic, 'analytic (Eq. 7)', '#d62728', 'dash'), mark(gridAlpha, 'grid (train)', '#2ca02c', 'dot'), mark(opts.alpha, 'your', '#000000', 'solid'));
  figure.layout = { ...(figure.layout ?? {}), showlegend: true };
  return { alpha: opts.alpha, rows, curve, figure: withLegendLayout(figure, 'below'), isReported: opts.alpha === analytic };
}

/** The strongest semantic scorer available, for the views of one hybrid: NN-SSC, else fine-tuned, else base cosine. */
export function strongestSemantic(available: Readonly<Record<string, unknown>>, order: readonly string[] = ['nnssc', 'cosine-ft', 'cosine-base']): string {
  const id = order.find((k) => available[k] !== undefined);
  if (!id) throw new EoError('INVALID_ARGUMENT', `strongestSemantic: none of ${order.join(', ')} is available (have ${Object.keys(available).join(', ') || 'none'})`);
  return id;
}
