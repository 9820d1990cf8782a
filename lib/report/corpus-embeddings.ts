import type { Corpus } from '../data/types';
import { datasetEncoderText } from '../data/text';
import { embedCorpusCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { progressPrinter } from './display';

/**
 * Every dataset's encoder text (`datasetEncoderText`) embedded by `encoder` through the embedding cache
 * (`embedCorpusCached`, keyed by the corpus hash and the encoder: computed once, then read), printing a progress line
 * while it computes: what notebooks 02–04 do before scoring with an encoder.
 */
export async function embedCorpusShowingProgress(corpus: Pick<Corpus, 'datasets' | 'hash'>, encoder: SentenceEncoder, label = 'corpus embeddings', workers = 2): Promise<Float32Array> {
  const bar = progressPrinter(label, corpus.datasets.length);
  const matrix = await embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers, onProgress: (done) => bar.update(done) });
  bar.done();
  return matrix;
}
