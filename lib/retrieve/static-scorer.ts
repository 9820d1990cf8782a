/**
 * The corpus-trained static encoder as a corpus scorer: the cosine of a query's vector with every dataset's, the
 * datasets embedded from `staticDocumentText` when the scorer is made (seconds: a table lookup per token).
 */
import type { Corpus } from '../data/types';
import { staticDocumentText, staticEncoder, type StaticEmbeddingModel } from '../encode/static';
import { stackRows } from '../util/vector';
import { denseScorer, type DenseScorer, type DenseScorerOptions } from './scorers';

/** Run tag and label of the static encoder's rows. */
export const STATIC_SCORER = { id: 'static', label: 'Static (corpus-trained)' } as const;

/** The static encoder's cosine over the corpus (`kernel` and the rest as `denseScorer`; its query cache is off: embedding is cheaper than reading it). */
export async function staticCosineScorer(model: StaticEmbeddingModel, corpus: Pick<Corpus, 'datasets'>, opts: Omit<DenseScorerOptions, 'noCache'> = {}): Promise<DenseScorer> {
  const encoder = staticEncoder(model);
  const matrix = stackRows(await encoder.embed(corpus.datasets.map((d) => staticDocumentText(d))), encoder.dim);
  return denseScorer(encoder, matrix, { ...STATIC_SCORER, ...opts, noCache: true });
}
