/**
 * The corpus-trained static encoder as a corpus scorer: the cosine of a query's vector with every dataset's, the
 * datasets embedded from `staticDocumentText` when the scorer is made (seconds: a table lookup per token).
 */
import type { Corpus } from '../data/types';
import { staticDocumentText, staticEncoder, type StaticEmbeddingModel } from '../encode/static';
import type { SentenceEncoder } from '../encode/types';
import { stackRows } from '../util/vector';
import type { DensePrf } from './prf';
import { denseScorer, type DenseScorer, type DenseScorerOptions } from './scorers';

/** Run tag and label of the static encoder's rows. */
export const STATIC_SCORER = { id: 'static', label: 'Static (corpus-trained)' } as const;

/** Run tag and label of NN-SSC on the static encoder (its frozen backbone in place of USE-lite). */
export const STATIC_NNSSC_SCORER = { id: 'nnssc-static', label: 'NN-SSC (static backbone)' } as const;

/**
 * The corpus matrices made in this process, per model and corpus (the same objects: `loadOrTrainStaticModel` hands out
 * one model per checkpoint and process): every engine and Table 2 cell of a notebook embeds the same ten thousand
 * datasets with the same encoder (~2 s each). Weak keys: a model or corpus no longer used frees its matrix.
 */
const corpusMatrices = new WeakMap<StaticEmbeddingModel, WeakMap<readonly unknown[], Promise<Float32Array>>>();

/**
 * The static encoder and every dataset's vector under it (corpus order, unit norm; `staticDocumentText`). The matrix is
 * shared by every caller with this model and corpus in the process: read it, never write it.
 */
export async function staticCorpusMatrix(model: StaticEmbeddingModel, corpus: Pick<Corpus, 'datasets'>): Promise<{ encoder: SentenceEncoder; matrix: Float32Array }> {
  const encoder = staticEncoder(model);
  let byCorpus = corpusMatrices.get(model);
  if (!byCorpus) corpusMatrices.set(model, (byCorpus = new WeakMap()));
  let matrix = byCorpus.get(corpus.datasets);
  if (!matrix) {
    matrix = encoder.embed(corpus.datasets.map((d) => staticDocumentText(d))).then((rows) => stackRows(rows, encoder.dim));
    byCorpus.set(corpus.datasets, matrix);
    matrix.catch(() => byCorpus!.delete(corpus.datasets)); // a failure is not remembered
  }
  return { encoder, matrix: await matrix };
}

/**
 * The static encoder's query-time pseudo-relevance feedback (`DensePrf`: Rocchio over its own first 3 datasets, weight
 * 1). Chosen on the style benchmark's DEV half with the dev labels left out of the pairs (`node bench/static-tune.cjs
 * --prf none,3:0.5,3:1,3:1.5,5:0.6,5:1,10:0.6,10:1`; the encoder alone, nDCG@10): none .5544 (question .430), k 3 at
 * β .5 / 1 / 1.5 .5648 / .5648 / .5634 (question .460 / .461 / .461), k 5 at .6 / 1 .5610 / .5592, k 10 .5627 / .5638.
 * A bag of token vectors averages a question's place, period and purpose with its need; the datasets it ranks first
 * mostly share the need, and their mean pulls the query towards it.
 */
export const DEFAULT_STATIC_PRF: Readonly<DensePrf> = Object.freeze({ k: 3, beta: 1 });

/**
 * The static scorer's label with its feedback: `STATIC_SCORER.label`, or with feedback seeded by the lexical half
 * `Static (corpus-trained; feedback from BM25's top 5)` — what a result's explanation names, so that a reader sees that
 * BM25's first datasets moved the semantic score.
 */
export function staticScorerLabel(prf: DensePrf | null | undefined): string {
  return prf?.seeds === 'lexical' ? `${STATIC_SCORER.label.slice(0, -1)}; feedback from BM25's top ${prf.k})` : STATIC_SCORER.label;
}

/**
 * The static encoder's cosine over the corpus (`kernel` and the rest as `denseScorer`; its query cache is off: embedding
 * is cheaper than reading it), with `DEFAULT_STATIC_PRF` unless `prf` says otherwise (null: one cosine pass).
 */
export async function staticCosineScorer(model: StaticEmbeddingModel, corpus: Pick<Corpus, 'datasets'>, opts: Omit<DenseScorerOptions, 'noCache'> = {}): Promise<DenseScorer> {
  const { encoder, matrix } = await staticCorpusMatrix(model, corpus);
  const prf = opts.prf === undefined ? DEFAULT_STATIC_PRF : opts.prf;
  return denseScorer(encoder, matrix, { ...STATIC_SCORER, label: staticScorerLabel(prf), ...opts, prf, noCache: true });
}
