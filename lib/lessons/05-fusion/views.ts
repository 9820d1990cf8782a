// Notebook 05's figures and display rows: π vs α, the sorted per-query gains, the score geometry of the query where
// fusion helps most. The general figure helpers stay in lib/report/figures.ts.
import type { BenchSplitView } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { minMaxNormalize } from '../../fuse/minmax';
import { fuseConvexParts } from '../../fuse/scorer';
import type { HybridStudy } from '../../study/study';
import { scatterFigure } from '../../report/figures';
import type { PerQueryGain } from '../../report/fusion';
import type { Table2 } from '../../report/table2';
import type { Figure, TableRow } from '../../report/types';

/** π (train) against α, one line per hybrid (the grid search's curve). */
export function alphaCurveFigure(hybrids: readonly HybridStudy[]): Figure {
  return scatterFigure(hybrids.map((h) => ({
    x: (h.gridRecord.curve ?? []).map((p) => p.alpha), y: (h.gridRecord.curve ?? []).map((p) => p.value), name: `${h.semanticLabel} + BM25`, mode: 'lines+markers' as const,
  })), { title: 'π (mean of R@10, R@20, R@100, MAP, MRR) on the training split vs α', xTitle: 'α (weight of the semantic scorer)', yTitle: 'π (train)' });
}

/** Rows of the per-query gain table. */
export function gainRows(gains: readonly PerQueryGain[]): TableRow[] {
  return gains.map((g) => ({ comparison: g.comparison, 'queries better': g.better, worse: g.worse, tied: g.tied, 'mean ΔAP': g.mean }));
}

/** The sorted per-query gains as one line each. */
export function gainFigure(gains: readonly PerQueryGain[]): Figure {
  return scatterFigure(gains.map((g) => ({ x: g.sorted.map((_, i) => i + 1), y: g.sorted, name: g.comparison, mode: 'lines' as const })), {
    title: 'Per-query gain of the hybrid over each component (AP, test split, sorted)', xTitle: 'test queries (sorted by gain)', yTitle: 'Δ average precision',
    layout: { shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0, y1: 0, line: { color: '#999' } }] },
  });
}

/** The test query where the hybrid's AP gains most over the better of its two components (the first on ties). */
export function mostHelpedQuery(table: Pick<Table2, 'perQuery'>, hybridId: string, semanticId: string, lexicalId = 'bm25'): string | null {
  const h = table.perQuery[hybridId];
  const s = table.perQuery[semanticId];
  const l = table.perQuery[lexicalId];
  if (!h || !s || !l) return null;
  let best: string | null = null;
  let gain = -Infinity;
  h.queryIds.forEach((q, i) => {
    const g = h.values.MAP[i] - Math.max(s.values.MAP[i], l.values.MAP[i]);
    if (g > gain) {
      gain = g;
      best = q;
    }
  });
  return best;
}

/**
 * Score geometry of one query: every dataset at (normalised BM25, normalised semantic score), positives highlighted,
 * and the line α·y + (1 − α)·x = the 10th fused score (everything above it is in the top 10).
 */
export function scoreGeometryFigure(opts: {
  corpus: Corpus; query: { id: string; text: string }; qrels: BenchSplitView['qrels'];
  semantic: Float32Array; lexical: Float32Array; alpha: number; semanticLabel: string;
}): Figure {
  const { corpus, alpha } = opts;
  const f = fuseConvexParts(opts.semantic, opts.lexical, alpha);
  const xs = minMaxNormalize(opts.lexical);
  const ys = minMaxNormalize(opts.semantic);
  const rel = opts.qrels.get(opts.query.id) ?? new Map<string, number>();
  const tenth = [...f.scores].sort((a, b) => b - a)[Math.min(9, f.scores.length - 1)];
  const idx = corpus.datasets.map((_, i) => i);
  const isPos = (i: number) => (rel.get(corpus.datasets[i].id) ?? 0) > 0;
  const pos = idx.filter(isPos);
  const others = idx.filter((i) => !isPos(i));
  const label = (i: number) => `${corpus.datasets[i].shortName ?? ''} ${corpus.datasets[i].longName.slice(0, 60)}`;
  const line = alpha > 0 ? { type: 'line', x0: 0, x1: 1, y0: tenth / alpha, y1: (tenth - (1 - alpha)) / alpha, line: { dash: 'dot', color: '#555' } } : null;
  const q = opts.query.text;
  const fig = scatterFigure([
    { x: others.map((i) => xs[i]), y: others.map((i) => ys[i]), name: 'other datasets', text: others.map(label) },
    { x: pos.map((i) => xs[i]), y: pos.map((i) => ys[i]), name: 'positives', text: pos.map(label) },
  ], {
    title: `Score geometry: "${q.slice(0, 70)}${q.length > 70 ? '…' : ''}"`,
    layout: {
      shapes: line ? [line] : [],
      xaxis: { title: { text: 'BM25 (min-max normalised)' }, range: [-0.02, 1.02], gridcolor: '#e5e5e5', zeroline: false },
      yaxis: { title: { text: `${opts.semanticLabel} (min-max normalised)` }, range: [-0.02, 1.02], gridcolor: '#e5e5e5', zeroline: false },
    },
  });
  fig.data[0].marker = { size: 4, opacity: 0.35, color: '#1f77b4' };
  fig.data[1].marker = { size: 10, color: '#d62728', line: { width: 1, color: 'black' } };
  return fig;
}
