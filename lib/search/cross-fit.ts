// Out-of-fold training scores of NN-SSC (issue 39 step 1): each training query scored by the fold model that never
// saw it (`loadOrTrainNnsscFolds`), so the fusion weight set on them (Eq. 7's π, the grid α) is not fitted on scores
// the scorer has memorised.
import type { BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import type { SentenceEncoder } from '../encode/types';
import { EoError } from '../errors';
import { nnsscScorer } from '../retrieve/nnssc-scorer';
import type { NnsscFolds } from '../train/artefacts';
import { retrieveBatch } from './retrieve-batch';

/** Out-of-fold score vectors of a cross-fitting, aligned with the training split's queries, and what names them. */
export interface CrossFittedScores {
  scores: Float32Array[];
  /** `cross-fitted k=<k> <folds hash>`: the fusion record's `semanticScores`. */
  source: string;
}

/**
 * Score every training query of `train` with the fold model of its fold (exact full-corpus NN-SSC over `corpusMatrix`,
 * through the search path's text rule, as the in-sample training scores are), in `train.queries` order. Every query
 * must belong to the folds' training split.
 */
export async function crossFittedNnsscScores(opts: {
  folds: NnsscFolds;
  train: Pick<BenchSplitView, 'queries'>;
  corpus: Corpus;
  encoder: SentenceEncoder;
  corpusMatrix: Float32Array;
  /** Scoring threads. Default 2. */
  threads?: number;
}): Promise<CrossFittedScores> {
  const { folds, train, corpus } = opts;
  const foldOf = new Map(folds.queries.map((q, i) => [q.id, folds.fold[i]]));
  const missing = train.queries.filter((q) => !foldOf.has(q.id));
  if (missing.length) throw new EoError('INVALID_ARGUMENT', `crossFittedNnsscScores: ${missing.length} queries are not in the folds' training split (first: ${missing[0].id})`);
  const scores: Float32Array[] = new Array(train.queries.length);
  for (let f = 0; f < folds.k; f++) {
    const rows = train.queries.map((q, i) => (foldOf.get(q.id) === f ? i : -1)).filter((i) => i >= 0);
    if (!rows.length) continue;
    const scorer = nnsscScorer(opts.encoder, opts.corpusMatrix, folds.models[f], { id: `nnssc-cv${folds.k}-fold${f}`, label: `NN-SSC fold ${f + 1}/${folds.k}`, threads: opts.threads ?? 2 });
    try {
      const got = await retrieveBatch(scorer, rows.map((i) => train.queries[i]), corpus);
      rows.forEach((r, j) => (scores[r] = got.scores[j]));
    } finally {
      scorer.dispose();
    }
  }
  return { scores, source: `cross-fitted k=${folds.k} ${folds.hash}` };
}
