/**
 * The corpus-trained static encoder as a corpus scorer: the cosine of a query's vector with every dataset's, the
 * datasets embedded from `staticDocumentText` when the scorer is made (seconds: a table lookup per token).
 */
import type { Corpus } from '../data/types';
import { staticDocumentText, staticEncoder, type StaticEmbeddingModel } from '../encode/static';
import type { SentenceEncoder } from '../encode/types';
import { stackRows } from '../util/vector';
import { denseScorer, type DenseScorer, type DenseScorerOptions } from './scorers';

/** Run tag and label of the static encoder's rows. */
export const STATIC_SCORER = { id: 'static', label: 'Static (corpus-trained)' } as const;

/** Run tag and label of NN-SSC on the static encoder (its frozen backbone in place of USE-lite). */
export const STATIC_NNSSC_SCORER = { id: 'nnssc-static', label: 'NN-SSC (static backbone)' } as const;

/** The static encoder and every dataset's vector under it (corpus order, unit norm; `staticDocumentText`). */
export async function staticCorpusMatrix(model: StaticEmbeddingModel, corpus: Pick<Corpus, 'datasets'>): Promise<{ encoder: SentenceEncoder; matrix: Float32Array }> {
  const encoder = staticEncoder(model);
  return { encoder, matrix: stackRows(await encoder.embed(corpus.datasets.map((d) => staticDocumentText(d))), encoder.dim) };
}

/** The static encoder's cosine over the corpus (`kernel` and the rest as `denseScorer`; its query cache is off: embedding is cheaper than reading it). */
export async function staticCosineScorer(model: StaticEmbeddingModel, corpus: Pick<Corpus, 'datasets'>, opts: Omit<DenseScorerOptions, 'noCache'> = {}): Promise<DenseScorer> {
  const { encoder, matrix } = await staticCorpusMatrix(model, corpus);
  return denseScorer(encoder, matrix, { ...STATIC_SCORER, ...opts, noCache: true });
}
