import type { BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import { minMaxNormalize } from '../fuse/minmax';
import { fuseConvexParts } from '../fuse/scorer';
import { pairedRows } from '../metrics/systems';
import type { MetricRow, PerQueryMetrics } from '../metrics/types';
import type { HybridStudy, SplitScores } from '../search/study';
import { scatterFigure } from './figures';
import type { Table2, Table2System } from './table2';
import type { Figure, TableRow } from './types';

/** What a trained scorer cost: shown in Table 2's parameter, time and backend columns. */
export interface TrainingCost {
  trainableParams: number | null;
  trainingSeconds: number | null;
  backend: string | null;
}

/** Training cost from a checkpoint manifest's loosely typed fields (metrics.trainableParams, metrics.wallSeconds). */
export function trainingCost(manifest: { backend: string; config: Record<string, unknown>; metrics?: Record<string, unknown> | null }): TrainingCost {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const m = manifest.metrics ?? {};
  return { trainableParams: num(m.trainableParams) ?? num(manifest.config.trainableParams), trainingSeconds: num(m.wallSeconds), backend: manifest.backend };
}

/** One row of the paper's Table 2 (and ours beyond it), as data. */
export interface Table2RowSpec {
  /** Semantic scorer id (`bm25` for the BM25 row). */
  scorer: string;
  /** `single`: the scorer alone; otherwise the scorer + BM25 fused that way. */
  how: 'single' | 'analytic' | 'grid' | 'rrf';
  label: string;
  /** The notebook that makes the scorer, named when it is missing. */
  makes?: string;
}

/** Table 2's rows: the paper's first, then ours (grid α, RRF). */
export const TABLE2_ROWS: readonly Table2RowSpec[] = [
  { scorer: 'bm25', how: 'single', label: 'BM25' },
  { scorer: 'cosine-base', how: 'single', label: 'Cosine (base)' },
  { scorer: 'cosine-ft', how: 'single', label: 'Cosine (fine-tuned)', makes: '03-encoder-finetune' },
  { scorer: 'cosine-ft', how: 'analytic', label: 'Cosine (fine-tuned) + BM25', makes: '03-encoder-finetune' },
  { scorer: 'cosine-ft-r2', how: 'analytic', label: 'Cosine (fine-tuned) + BM25 + R2', makes: '03-encoder-finetune' },
  { scorer: 'nnssc', how: 'single', label: 'NN-SSC', makes: '04-nnssc' },
  { scorer: 'nnssc', how: 'analytic', label: 'NN-SSC + BM25', makes: '04-nnssc' },
  // beyond the paper
  { scorer: 'nnssc', how: 'grid', label: 'NN-SSC + BM25 (grid α)', makes: '04-nnssc' },
  { scorer: 'nnssc', how: 'rrf', label: 'NN-SSC + BM25 (RRF)', makes: '04-nnssc' },
  { scorer: 'cosine-ft', how: 'grid', label: 'Cosine (fine-tuned) + BM25 (grid α)', makes: '03-encoder-finetune' },
  { scorer: 'cosine-ft', how: 'rrf', label: 'Cosine (fine-tuned) + BM25 (RRF)', makes: '03-encoder-finetune' },
  { scorer: 'cosine-base', how: 'analytic', label: 'Cosine (base) + BM25' },
  { scorer: 'cosine-base-r2', how: 'analytic', label: 'Cosine (base) + BM25 + R2' },
  { scorer: 'cosine-base', how: 'rrf', label: 'Cosine (base) + BM25 (RRF)' },
];

/** Run id of a Table 2 row: `bm25`, `nnssc`, `nnssc+bm25`, `nnssc+bm25-grid`, `nnssc+bm25-rrf`. */
export function table2RowId(r: Pick<Table2RowSpec, 'scorer' | 'how'>): string {
  return r.how === 'single' ? r.scorer : `${r.scorer}+bm25${r.how === 'analytic' ? '' : `-${r.how}`}`;
}

/**
 * Table 2's systems from the study: each row's test and train runs (single scorers from their split scores, hybrids
 * from `studyHybrid`), α and its method, training cost; a row whose scorer is missing keeps a "not available: run …"
 * note.
 */
export function table2Systems(input: {
  scores: Readonly<Record<string, SplitScores | undefined>>;
  hybrids: Readonly<Record<string, HybridStudy | undefined>>;
  /** Training cost per scorer id (the hybrid rows show their semantic scorer's). Default: 0 parameters for untrained. */
  cost?: Readonly<Record<string, TrainingCost | undefined>>;
  rows?: readonly Table2RowSpec[];
}): Table2System[] {
  return (input.rows ?? TABLE2_ROWS).map((r) => {
    const id = table2RowId(r);
    const c = input.cost?.[r.scorer] ?? input.cost?.[r.scorer.replace(/-r2$/, '')];
    const extra = c ? { trainableParams: c.trainableParams, trainingSeconds: c.trainingSeconds, backend: c.backend } : r.makes ? {} : { trainableParams: 0 };
    const missing = { id, label: r.label, note: `not available: run ${r.makes ?? 'the notebook that makes it'}` };
    if (r.how === 'single') {
      const s = input.scores[r.scorer];
      return s ? { id, label: r.label, test: s.test.run, train: s.train.run, ...extra } : missing;
    }
    const h = input.hybrids[r.scorer];
    if (!h) return missing;
    const f = h[r.how];
    return { id, label: r.label, test: f.test, train: f.train, alpha: f.alpha, alphaMethod: f.method, ...extra };
  });
}

/** The α table: per hybrid, π of each scorer on the training split, the analytic α, the grid α and π there. */
export function alphaRows(hybrids: readonly HybridStudy[]): TableRow[] {
  return hybrids.map((h) => {
    const g = h.gridRecord;
    return {
      hybrid: `${h.semanticLabel} + BM25`,
      'π semantic (train)': h.analyticRecord.piSemantic,
      'π BM25 (train)': h.analyticRecord.piLexical,
      'α analytic (Eq. 7)': h.analyticRecord.alpha,
      'α grid (train)': g.alpha,
      'π at grid α (train)': g.curve?.find((p) => p.alpha === g.alpha)?.value ?? null,
    };
  });
}

/** π (train) against α, one line per hybrid (the grid search's curve). */
export function alphaCurveFigure(hybrids: readonly HybridStudy[]): Figure {
  return scatterFigure(hybrids.map((h) => ({
    x: (h.gridRecord.curve ?? []).map((p) => p.alpha), y: (h.gridRecord.curve ?? []).map((p) => p.value), name: `${h.semanticLabel} + BM25`, mode: 'lines+markers' as const,
  })), { title: 'π (mean of R@10, R@20, R@100, MAP, MRR) on the training split vs α', xTitle: 'α (weight of the semantic scorer)', yTitle: 'π (train)' });
}

/** Per-query difference of one metric between two systems: how many queries are better, worse, tied, and the mean. */
export interface PerQueryGain {
  comparison: string;
  /** The differences, sorted ascending. */
  sorted: number[];
  better: number;
  worse: number;
  tied: number;
  mean: number;
}

/** Per-query gains of system `a` over `b` on `metric` (default MAP, i.e. AP per query); ties within 1e-12. */
export function perQueryGain(a: PerQueryMetrics, b: PerQueryMetrics, comparison: string, metric: keyof PerQueryMetrics['values'] = 'MAP'): PerQueryGain {
  const va = a.values[metric];
  const byId = new Map(b.queryIds.map((q, i) => [q, b.values[metric][i]]));
  const d = a.queryIds.map((q, i) => va[i] - (byId.get(q) ?? 0)).sort((x, y) => x - y);
  return {
    comparison, sorted: d, better: d.filter((x) => x > 1e-12).length, worse: d.filter((x) => x < -1e-12).length,
    tied: d.filter((x) => Math.abs(x) <= 1e-12).length, mean: d.length ? d.reduce((s, x) => s + x, 0) / d.length : 0,
  };
}

/** Gains of each hybrid over its components: `[hybrid id, component id]` pairs present in the table. */
export function hybridGains(table: Pick<Table2, 'perQuery'>, systems: readonly Pick<Table2System, 'id' | 'label'>[], pairs: readonly (readonly [string, string])[]): PerQueryGain[] {
  const label = (id: string) => systems.find((s) => s.id === id)?.label ?? id;
  return pairs.filter(([h, c]) => table.perQuery[h] && table.perQuery[c]).map(([h, c]) => perQueryGain(table.perQuery[h], table.perQuery[c], `${label(h)} − ${label(c)}`));
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

/** Paired comparisons (mean difference, CI, p) of a hybrid with each of its components. */
export function ablationRows(table: Pick<Table2, 'perQuery'>, hybrid: [string, string], components: readonly [string, string][]): Record<string, TableRow[]> {
  const out: Record<string, TableRow[]> = {};
  const [hid, hl] = hybrid;
  if (!table.perQuery[hid]) return out;
  for (const [cid, cl] of components) if (table.perQuery[cid]) out[`${hl} vs ${cl}`] = pairedRows(table.perQuery[hid], table.perQuery[cid], hl, cl) as TableRow[];
  return out;
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

const f3 = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/**
 * The discussion at the end of the fusion notebook, written from the numbers: which row is best, what fusion adds
 * over each component (paired CIs), how the analytic α compares with the grid, RRF against convex fusion, R2, and
 * how far title queries are from the paper's setting. Markdown.
 */
export function fusionDiscussion(input: {
  table: Pick<Table2, 'rows' | 'paired' | 'best' | 'metrics'>;
  hybrids: readonly HybridStudy[];
  gains: readonly PerQueryGain[];
  queries: number;
  writerLabel: string;
}): string {
  const { table } = input;
  const metric = (label: string): MetricRow | undefined => table.metrics.find((m) => m.system === label);
  const vsBest = (label: string, m = 'MAP') => table.paired.find((p) => p.system === label && p.metric === m);
  const out: string[] = ['## Discussion', ''];
  const best = metric(table.best.label);
  if (best) {
    out.push(`**Best row.** On ${input.queries} test queries (${input.writerLabel}), the best row by π is **${table.best.label}** ` +
      `(MAP ${f3(best.MAP)}, MRR ${f3(best.MRR)}, R@10 ${f3(best['R@10'])}, R@100 ${f3(best['R@100'])}).`);
    const close = table.metrics.filter((m) => m.system !== table.best.label).map((m) => ({ m, c: vsBest(m.system) }))
      .filter((x) => x.c && Number(x.c.p) >= 0.05).map((x) => x.m.system);
    out.push(close.length
      ? `Its MAP is not significantly different (paired randomization p ≥ 0.05) from: ${close.join('; ')}.`
      : 'Every other row has a significantly lower MAP (paired randomization p < 0.05).');
    out.push('');
  }
  if (input.gains.length) {
    out.push('**What fusion adds.** Per test query (AP):');
    for (const g of input.gains) out.push(`- ${g.comparison}: better on ${g.better}, worse on ${g.worse}, tied on ${g.tied} queries; mean ΔAP ${signed(g.mean)}.`);
    out.push('');
  }
  if (input.hybrids.length) {
    out.push('**α.** Set on the training split only:');
    for (const h of input.hybrids) {
      const a = h.analyticRecord;
      const g = h.gridRecord;
      const piGrid = g.curve?.find((p) => p.alpha === g.alpha)?.value;
      const piAna = g.curve?.reduce((b, p) => (Math.abs(p.alpha - a.alpha) < Math.abs(b.alpha - a.alpha) ? p : b), g.curve[0]);
      out.push(`- ${h.semanticLabel} + BM25: π_sem ${f3(a.piSemantic)}, π_BM25 ${f3(a.piLexical)} → analytic α ${f3(a.alpha)}; grid α ${f3(g.alpha)}` +
        (piGrid !== undefined && piAna ? ` (π train ${f3(piGrid)} there vs ${f3(piAna.value)} at the grid point nearest the analytic α).` : '.'));
    }
    out.push('');
  }
  const rrfVsConvex = input.hybrids.map((h) => {
    const conv = metric(table.rows.find((r) => r.system === `${h.semanticLabel} + BM25`)?.system as string);
    const rrf = table.metrics.find((m) => m.system.startsWith(`${h.semanticLabel} + BM25 (RRF)`));
    return conv && rrf ? `${h.semanticLabel}: RRF MAP ${f3(rrf.MAP)} vs convex ${f3(conv.MAP)}` : null;
  }).filter((x): x is string => x !== null);
  if (rrfVsConvex.length) out.push(`**RRF vs convex fusion.** ${rrfVsConvex.join('; ')}. RRF needs no weight; convex fusion uses the score margins that RRF discards.`, '');
  const r2 = [['Cosine (base) + BM25', 'Cosine (base) + BM25 + R2'], ['Cosine (fine-tuned) + BM25', 'Cosine (fine-tuned) + BM25 + R2']]
    .map(([a, b]) => [metric(a), metric(b)] as const).filter(([a, b]) => a && b).map(([a, b]) => `${b!.system}: MAP ${f3(b!.MAP)} vs ${f3(a!.MAP)} without R2`);
  if (r2.length) out.push(`**R2.** ${r2.join('; ')}.`, '');
  out.push('**Against the paper.** These queries are publication titles written offline, not the paper\'s LLM-written "I want to …" queries: ' +
    'titles share many words with dataset metadata, which favours BM25 and lowers the analytic α. Absolute numbers and even the order of rows can ' +
    'therefore differ from the paper\'s Table 2; the protocol (α from the training split, paired tests against the best row) is the same.');
  return out.join('\n');
}
