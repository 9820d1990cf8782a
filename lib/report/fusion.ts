import { EoError } from '../errors';
import { pairedComparisons } from '../metrics/systems';
import { withHolmPerMetric } from '../metrics/multiple';
import { holmFamilyText } from './paired-text';
import { compareSystems } from '../metrics/paired';
import type { MetricName, PairedComparison, PerQueryMetrics } from '../metrics/types';
import { SELF_SUPERVISED_SCORERS, selfSupervisedPlainId, selfSupervisedTrainCommand, type SelfSupervisedScorerSpec } from '../study/self-supervised';
import type { HybridStudy, SplitScores } from '../study/study';
import { finiteOrNull as num } from './numbers';
import type { Table2, Table2System } from './table2';
import type { TableRow } from './types';

/** What a trained scorer cost: shown in Table 2's parameter, time and backend columns. */
export interface TrainingCost {
  trainableParams: number | null;
  trainingSeconds: number | null;
  backend: string | null;
}

/** Training cost from a checkpoint manifest's loosely typed fields (metrics.trainableParams, metrics.wallSeconds). */
export function trainingCost(manifest: { backend: string; config: Record<string, unknown>; metrics?: Record<string, unknown> | null }): TrainingCost {
  const m = manifest.metrics ?? {};
  return { trainableParams: num(m.trainableParams) ?? num(manifest.config.trainableParams), trainingSeconds: num(m.wallSeconds), backend: manifest.backend };
}

/** One row of the paper's Table 2 (and ours beyond it), as data. */
export interface Table2RowSpec {
  /** Semantic scorer id (`bm25` for the BM25 row). */
  scorer: string;
  /**
   * `single`: the scorer alone; otherwise the scorer + BM25 fused that way. `analytic-oof` / `grid-oof`: the α set on
   * the scorer's out-of-fold training scores (`studyHybrid({ crossFitted })`, issue 39) instead of its in-sample ones.
   */
  how: 'single' | 'analytic' | 'grid' | 'rrf' | 'analytic-oof' | 'grid-oof';
  label: string;
  /** The notebook that makes the scorer, named when it is missing. */
  makes?: string;
  /** A row of the paper's own Table 2 (the others are ours, beyond the paper). Default false. */
  inPaper?: boolean;
}

/** Table 2's rows: the paper's first, then ours (grid α, RRF). */
export const TABLE2_ROWS: readonly Table2RowSpec[] = [
  { scorer: 'bm25', how: 'single', label: 'BM25', inPaper: true },
  { scorer: 'cosine-base', how: 'single', label: 'Cosine (base)', inPaper: true },
  { scorer: 'cosine-ft', how: 'single', label: 'Cosine (fine-tuned)', makes: '03-encoder-finetune', inPaper: true },
  { scorer: 'cosine-ft', how: 'analytic', label: 'Cosine (fine-tuned) + BM25', makes: '03-encoder-finetune', inPaper: true },
  { scorer: 'cosine-ft-r2', how: 'analytic', label: 'Cosine (fine-tuned) + BM25 + R2', makes: '03-encoder-finetune', inPaper: true },
  { scorer: 'nnssc', how: 'single', label: 'NN-SSC', makes: '04-nnssc', inPaper: true },
  { scorer: 'nnssc', how: 'analytic', label: 'NN-SSC + BM25', makes: '04-nnssc', inPaper: true },
  // beyond the paper
  { scorer: 'bm25-stop', how: 'single', label: 'BM25-stop' }, // the strong short lexical baseline (lib/retrieve/bm25-stop.ts)
  // the corpus-trained static encoder (lib/encode/static.ts), alone and fused with BM25 at the analytic α
  { scorer: 'static', how: 'single', label: 'Static (corpus-trained)', makes: '03-encoder-finetune' },
  { scorer: 'static', how: 'analytic', label: 'Static (corpus-trained) + BM25', makes: '03-encoder-finetune' },
  // NN-SSC trained on the static encoder instead of USE-lite (notebook 04, section 8), alone and fused at the analytic α
  { scorer: 'nnssc-static', how: 'single', label: 'NN-SSC (static backbone)', makes: '04-nnssc' },
  { scorer: 'nnssc-static', how: 'analytic', label: 'NN-SSC (static backbone) + BM25', makes: '04-nnssc' },
  { scorer: 'nnssc', how: 'grid', label: 'NN-SSC + BM25 (grid α)', makes: '04-nnssc' },
  // α set on out-of-fold NN-SSC training scores (notebook 04 trains the fold models), not on memorised ones
  { scorer: 'nnssc', how: 'analytic-oof', label: 'NN-SSC + BM25 (Eq. 7, out-of-fold π)', makes: '04-nnssc' },
  { scorer: 'nnssc', how: 'grid-oof', label: 'NN-SSC + BM25 (grid α, out-of-fold)', makes: '04-nnssc' },
  { scorer: 'nnssc-static', how: 'analytic-oof', label: 'NN-SSC (static backbone) + BM25 (Eq. 7, out-of-fold π)', makes: '04-nnssc' },
  { scorer: 'nnssc-static', how: 'grid-oof', label: 'NN-SSC (static backbone) + BM25 (grid α, out-of-fold)', makes: '04-nnssc' },
  { scorer: 'nnssc', how: 'rrf', label: 'NN-SSC + BM25 (RRF)', makes: '04-nnssc' },
  { scorer: 'cosine-ft', how: 'grid', label: 'Cosine (fine-tuned) + BM25 (grid α)', makes: '03-encoder-finetune' },
  { scorer: 'cosine-ft', how: 'rrf', label: 'Cosine (fine-tuned) + BM25 (RRF)', makes: '03-encoder-finetune' },
  { scorer: 'cosine-base', how: 'analytic', label: 'Cosine (base) + BM25' },
  { scorer: 'cosine-base-r2', how: 'analytic', label: 'Cosine (base) + BM25 + R2' },
  { scorer: 'cosine-base', how: 'rrf', label: 'Cosine (base) + BM25 (RRF)' },
];

/**
 * The rows of notebook 05's Table 2: `TABLE2_ROWS` (the paper's rows, then ours), then `extra` rows appended by a
 * later study (e.g. a self-supervised scorer and its hybrids). Everything else in the notebook (which hybrids are
 * fused, the gain plots) follows from this list.
 */
export function table2Rows(extra: readonly Table2RowSpec[] = []): Table2RowSpec[] {
  const rows = [...TABLE2_ROWS, ...extra];
  const ids = rows.map(table2RowId);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new EoError('INVALID_ARGUMENT', `table2Rows: two rows have run id ${JSON.stringify(dup)} (scorer + how must be unique)`, { id: dup });
  return rows;
}

/** The semantic scorers that some row fuses with BM25 (each needs `studyHybrid`), in row order. */
export function table2Hybrids(rows: readonly Table2RowSpec[]): string[] {
  return [...new Set(rows.filter((r) => r.how !== 'single').map((r) => r.scorer))];
}

/**
 * The per-query gain comparisons of Table 2: each of the paper's hybrids with the analytic α (R2 variants left out)
 * against each of its two components, `[hybrid run id, component run id]`, the paper's last (best) hybrid first.
 */
export function table2GainPairs(rows: readonly Table2RowSpec[]): [string, string][] {
  const hybrids = rows.filter((r) => r.how === 'analytic' && r.inPaper === true && !r.scorer.endsWith('-r2')).reverse();
  return hybrids.flatMap((r) => [[table2RowId(r), r.scorer], [table2RowId(r), 'bm25']] as [string, string][]);
}

/** Table 2 rows of self-supervised scorers: each alone and fused with BM25 (analytic α, Eq. 7, and grid α); `makes` names the bench command (with `--sample` when `sample`). */
export function selfSupervisedTable2Rows(specs: readonly SelfSupervisedScorerSpec[] = SELF_SUPERVISED_SCORERS, sample = false): Table2RowSpec[] {
  return specs.flatMap((s) => (['single', 'analytic', 'grid'] as const).map((how) => ({
    scorer: s.scorer, how, label: how === 'single' ? s.label : `${s.label} + BM25${how === 'grid' ? ' (grid α)' : ''}`, makes: selfSupervisedTrainCommand(s, sample),
  })));
}

/** Every self-supervised Table 2 row (notebook 05 appends those whose checkpoint exists: `table2Rows(selfSupervisedTable2Rows(found))`). */
export const SELF_SUPERVISED_TABLE2_ROWS: readonly Table2RowSpec[] = selfSupervisedTable2Rows();

/**
 * Every self-supervised row of the table against its plain counterpart (the same recipe without corpus pairs, the same
 * fusion): mean difference, bootstrap 95 % CI and paired randomization p per metric (10,000 each, seed 42). Rows whose
 * counterpart is missing are left out.
 */
export function selfSupervisedPairedRows(table: Pick<Table2, 'perQuery'>, systems: readonly Pick<Table2System, 'id' | 'label'>[], metrics: readonly MetricName[] = ['R@10', 'R@100', 'MAP', 'MRR']): TableRow[] {
  const label = (id: string) => systems.find((s) => s.id === id)?.label ?? id;
  return systems.flatMap((s) => {
    const plain = selfSupervisedPlainId(s.id);
    if (!plain || !table.perQuery[s.id] || !table.perQuery[plain]) return [];
    return compareSystems(table.perQuery[s.id], table.perQuery[plain], metrics, { seed: 42, permutations: 10000, bootstrapSamples: 10000 }).map((c) => ({
      row: s.label, vs: label(plain), metric: c.metric, row_value: c.meanA, plain_value: c.meanB, 'Δ': c.meanDiff, 'CI95 low': c.ciLow, 'CI95 high': c.ciHigh, p: c.pValue, n: c.n,
    }));
  });
}

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
    const cross = h.crossFitted;
    const outOfFold = r.how === 'analytic-oof' || r.how === 'grid-oof';
    if (outOfFold && !cross) return { ...missing, note: `not available: no out-of-fold training scores (run ${r.makes ?? 'the notebook that makes it'}, which trains the fold models)` };
    const f = r.how === 'analytic-oof' ? cross!.analytic : r.how === 'grid-oof' ? cross!.grid : h[r.how];
    return { id, label: r.label, test: f.test, train: f.train, alpha: f.alpha, alphaMethod: f.method, ...extra };
  });
}

/**
 * The α table: per hybrid, π of each scorer on the training split, the analytic α, the grid α and π there; and, for a
 * hybrid with out-of-fold training scores (`HybridStudy.crossFitted`), the semantic scorer's out-of-fold π and the two
 * α set on them (null otherwise: an untrained scorer's in-sample scores are already out-of-sample).
 */
export function alphaRows(hybrids: readonly HybridStudy[]): TableRow[] {
  return hybrids.map((h) => {
    const g = h.gridRecord;
    const c = h.crossFitted;
    return {
      hybrid: `${h.semanticLabel} + BM25`,
      'π semantic (train)': h.analyticRecord.piSemantic,
      'π BM25 (train)': h.analyticRecord.piLexical,
      'α analytic (Eq. 7)': h.analyticRecord.alpha,
      'α grid (train)': g.alpha,
      'π at grid α (train)': g.curve?.find((p) => p.alpha === g.alpha)?.value ?? null,
      'π semantic (train, out-of-fold)': c ? c.analyticRecord.piSemantic : null,
      'α analytic (out-of-fold π)': c ? c.analyticRecord.alpha : null,
      'α grid (out-of-fold)': c ? c.gridRecord.alpha : null,
    };
  });
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

/** Typed paired comparisons (mean difference, CI, p, Holm p over the components, effect sizes) of a hybrid with each of its components, keyed `<hybrid> vs <component>`. */
export function ablationComparisons(table: Pick<Table2, 'perQuery'>, hybrid: [string, string], components: readonly [string, string][]): Record<string, PairedComparison[]> {
  const out: Record<string, PairedComparison[]> = {};
  const [hid, hl] = hybrid;
  if (!table.perQuery[hid]) return out;
  const present = components.filter(([cid]) => table.perQuery[cid]);
  const cmps = present.map(([cid, cl]) => pairedComparisons(table.perQuery[hid], table.perQuery[cid], hl, cl));
  // Holm per metric over the components the hybrid is compared with (one reference, several comparisons)
  const adjusted = withHolmPerMetric(cmps, (m) => holmFamilyText(present.length, hl, m));
  present.forEach(([, cl], i) => { out[`${hl} vs ${cl}`] = adjusted[i]; });
  return out;
}

