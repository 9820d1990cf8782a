import type { BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import type { EmbedProgress } from '../encode/types';
import { RRF_K } from '../fuse/rrf';
import type { FusionSpec } from '../fuse/scorer';
import type { Run } from '../metrics/types';
import type { CorpusScorer, ScoredRun } from '../retrieve/scorers';
import { fuseBatch, retrieveBatch } from '../search/retrieve-batch';
import { fusionAlpha, type FusionRecord } from '../search/fusion-record';
import type { CrossFittedScores } from '../search/cross-fit';

/** The evaluation splits of a study. */
export interface StudySplits {
  train: BenchSplitView;
  test: BenchSplitView;
}

/** One scorer's runs and full score vectors on both splits. */
export interface SplitScores {
  train: ScoredRun;
  test: ScoredRun;
}

/** Retrieve step of a study: one scorer over both splits, through the search path's text rule (`retrieveBatch`). */
export async function retrieveSplits(scorer: CorpusScorer, splits: StudySplits, corpus: Corpus, opts: { onProgress?: EmbedProgress } = {}): Promise<SplitScores> {
  return { train: await retrieveBatch(scorer, splits.train.queries, corpus, opts), test: await retrieveBatch(scorer, splits.test.queries, corpus, opts) };
}

/** A fusion of two scorers with its runs on both splits. */
export interface FusedSplitRuns {
  spec: FusionSpec;
  /** α of a convex fusion (null for RRF). */
  alpha: number | null;
  /** `analytic (Eq. 7)`, `grid (train)`, `RRF k=60`. */
  method: string;
  train: Run;
  test: Run;
}

/** A hybrid's three fusions (analytic α, grid α, RRF), with the fusion records the two α came from. */
export interface HybridStudy {
  semanticId: string;
  semanticLabel: string;
  analytic: FusedSplitRuns;
  grid: FusedSplitRuns;
  rrf: FusedSplitRuns;
  analyticRecord: FusionRecord;
  gridRecord: FusionRecord;
  /**
   * With `crossFitted` semantic training scores (issue 39): the analytic and grid α set on them instead of the
   * scorer's in-sample scores, and their fused runs (the test runs use the scorer's own test scores, as above).
   */
  crossFitted?: { source: string; analytic: FusedSplitRuns; grid: FusedSplitRuns; analyticRecord: FusionRecord; gridRecord: FusionRecord };
}

/**
 * The α loop and fusion runs of one hybrid: α read from (or set on the training split and stored in) its fusion
 * records — analytic (Eq. 7) and grid — then the fused runs of both splits for each α, and RRF.
 */
export async function studyHybrid(opts: {
  corpus: Corpus;
  splits: StudySplits;
  semantic: { scorer: CorpusScorer; scores: SplitScores };
  lexical: { scorer: CorpusScorer; scores: SplitScores };
  /** Out-of-fold semantic scores of the training split (`crossFittedNnsscScores`): α set on them too (`HybridStudy.crossFitted`). */
  crossFitted?: CrossFittedScores;
  /** Folder of fusion records. Default `checkpoints/fusion`. */
  fusionDir?: string;
  log?: (line: string) => void;
}): Promise<HybridStudy> {
  const { corpus, splits, semantic, lexical } = opts;
  const trainScores = { semantic: semantic.scores.train.scores, lexical: lexical.scores.train.scores };
  const record = (method: 'analytic' | 'grid', cross?: CrossFittedScores) =>
    fusionAlpha({
      corpus, train: splits.train, semantic: semantic.scorer, lexical: lexical.scorer, method, dir: opts.fusionDir, log: opts.log,
      ...(cross ? { trainScores: { semantic: cross.scores, lexical: trainScores.lexical }, semanticScores: cross.source } : { trainScores }),
    });
  const analyticRecord = (await record('analytic')).record;
  const gridRecord = (await record('grid')).record;
  const fuse = (spec: FusionSpec, method: string): FusedSplitRuns => ({
    spec, method, alpha: spec.method === 'convex' ? spec.alpha : null,
    train: fuseBatch(spec, splits.train.queries, semantic.scores.train.scores, lexical.scores.train.scores, corpus).run,
    test: fuseBatch(spec, splits.test.queries, semantic.scores.test.scores, lexical.scores.test.scores, corpus).run,
  });
  let crossFitted: HybridStudy['crossFitted'];
  if (opts.crossFitted) {
    const cross = opts.crossFitted;
    const a = (await record('analytic', cross)).record;
    const g = (await record('grid', cross)).record;
    crossFitted = {
      source: cross.source, analyticRecord: a, gridRecord: g,
      analytic: fuse({ method: 'convex', alpha: a.alpha }, 'analytic (Eq. 7, cross-fitted π)'),
      grid: fuse({ method: 'convex', alpha: g.alpha }, 'grid (train, cross-fitted)'),
    };
  }
  return {
    semanticId: semantic.scorer.id, semanticLabel: semantic.scorer.label, analyticRecord, gridRecord,
    analytic: fuse({ method: 'convex', alpha: analyticRecord.alpha }, 'analytic (Eq. 7)'),
    grid: fuse({ method: 'convex', alpha: gridRecord.alpha }, 'grid (train)'),
    rrf: fuse({ method: 'rrf', k: RRF_K }, `RRF k=${RRF_K}`),
    ...(crossFitted ? { crossFitted } : {}),
  };
}

/**
 * The run of a convex fusion at any α on one split, from the scorers' cached score vectors (no scorer runs again):
 * what a reader's α knob re-derives. Same fusion path as `studyHybrid` (`fuseBatch`), so at the recorded α it gives
 * exactly the reported run.
 */
export function fuseSplitAtAlpha(opts: { corpus: Corpus; split: BenchSplitView; semantic: ScoredRun; lexical: ScoredRun; alpha: number }): Run {
  return fuseBatch({ method: 'convex', alpha: opts.alpha }, opts.split.queries, opts.semantic.scores, opts.lexical.scores, opts.corpus).run;
}
