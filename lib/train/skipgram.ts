/**
 * A skip-gram word2vec (negative sampling; Mikolov et al. 2013, the model fastText's `skipgram` trains without
 * subwords) over the corpus text, on typed arrays: an initial token table for the static encoder (issue 37 step 5,
 * "the initialisations tried"). Its vectors place words that share contexts near each other ("sst" near "sea surface
 * temperature") before any pair is seen. Seeded and single-threaded, so the same texts, vocabulary and config give
 * the same table bit for bit.
 */
import { EoError } from '../errors';
import { staticTokens, type StaticVocabulary } from '../encode/static';
import { mulberry32 } from '../util/random';

export interface SkipgramConfig {
  /** Width of the vectors (the static table's). Default 256. */
  dim: number;
  /** Largest context window on each side; each position draws its window from 1..window (word2vec's). Default 5. */
  window: number;
  /** Negative samples per (word, context) pair, from the unigram distribution to the power 0.75. Default 5. */
  negatives: number;
  /** Passes over the texts. Default 1. */
  epochs: number;
  /** Initial learning rate, decayed linearly to 1e-4 of it over all passes. Default 0.025. */
  learningRate: number;
  /** Frequent-word subsampling threshold t (a token of frequency f is kept with probability √(t/f) + t/f). Default 1e-4. */
  subsample: number;
  seed: number;
}

export const DEFAULT_SKIPGRAM_CONFIG: Readonly<SkipgramConfig> = Object.freeze({
  dim: 256, window: 5, negatives: 5, epochs: 1, learningRate: 0.025, subsample: 1e-4, seed: 42,
});

const UNIGRAM_TABLE = 1 << 20;

function checkConfig(c: SkipgramConfig): void {
  const bad = (f: string, why: string) => new EoError('CONFIG', `skipgram ${f} ${why}`);
  for (const f of ['dim', 'window', 'epochs'] as const) if (!(Number.isInteger(c[f]) && c[f] >= 1)) throw bad(f, `must be an integer ≥ 1 (got ${c[f]})`);
  if (!(Number.isInteger(c.negatives) && c.negatives >= 0)) throw bad('negatives', `must be an integer ≥ 0 (got ${c.negatives})`);
  if (!(c.learningRate > 0)) throw bad('learningRate', `must be > 0 (got ${c.learningRate})`);
  if (!(c.subsample >= 0)) throw bad('subsample', `must be ≥ 0 (got ${c.subsample})`);
}

export interface SkipgramResult {
  /** `vocab.tokens.length × dim` input vectors (the table the static encoder starts from). */
  table: Float32Array;
  /** Token positions read per pass (before subsampling) and trained (after). */
  tokens: number;
  trained: number;
  seconds: number;
  config: SkipgramConfig;
}

/** Skip-gram with negative sampling over `texts`, tokenized as the vocabulary tokenizes (unknown tokens dropped). */
export function trainSkipgram(vocab: StaticVocabulary, texts: readonly string[], config: Partial<SkipgramConfig> = {}): SkipgramResult {
  const c: SkipgramConfig = { ...DEFAULT_SKIPGRAM_CONFIG, ...config };
  checkConfig(c);
  const t0 = performance.now();
  const V = vocab.tokens.length;
  const D = c.dim;
  if (V === 0) throw new EoError('INVALID_ARGUMENT', 'trainSkipgram: the vocabulary is empty');
  // the texts as token ids, and each token's count
  const docs: Int32Array[] = [];
  const count = new Float64Array(V);
  let total = 0;
  for (const t of texts) {
    const ids: number[] = [];
    for (const tok of staticTokens(t, vocab.tokenizer)) {
      const id = vocab.ids.get(tok);
      if (id !== undefined) {
        ids.push(id);
        count[id]++;
      }
    }
    total += ids.length;
    docs.push(Int32Array.from(ids));
  }
  if (total === 0) throw new EoError('INVALID_ARGUMENT', 'trainSkipgram: no text holds a vocabulary token');
  // negatives are drawn from count^0.75 (word2vec's table)
  const unigram = new Int32Array(UNIGRAM_TABLE);
  let z = 0;
  for (let i = 0; i < V; i++) z += count[i] ** 0.75;
  for (let i = 0, acc = count[0] ** 0.75 / z, k = 0; k < UNIGRAM_TABLE; k++) {
    unigram[k] = i;
    if (k / UNIGRAM_TABLE > acc && i < V - 1) acc += count[++i] ** 0.75 / z;
  }
  const keep = new Float64Array(V);
  for (let i = 0; i < V; i++) {
    const f = count[i] / total;
    keep[i] = c.subsample > 0 && f > 0 ? Math.min(1, Math.sqrt(c.subsample / f) + c.subsample / f) : 1;
  }
  const rng = mulberry32(c.seed);
  const input = new Float32Array(V * D);
  for (let i = 0; i < input.length; i++) input[i] = (rng() - 0.5) / D; // word2vec's initialisation
  const output = new Float32Array(V * D);
  const grad = new Float32Array(D);
  const sentence: number[] = [];
  const steps = c.epochs * total;
  let seen = 0;
  let trained = 0;
  for (let epoch = 0; epoch < c.epochs; epoch++) {
    for (const doc of docs) {
      sentence.length = 0;
      for (const id of doc) if (keep[id] >= 1 || rng() < keep[id]) sentence.push(id);
      trained += sentence.length;
      for (let p = 0; p < sentence.length; p++) {
        const lr = c.learningRate * Math.max(1e-4, 1 - (seen + p) / steps);
        const w = sentence[p] * D;
        const b = 1 + Math.floor(rng() * c.window);
        for (let q = Math.max(0, p - b); q <= Math.min(sentence.length - 1, p + b); q++) {
          if (q === p) continue;
          grad.fill(0);
          for (let n = 0; n <= c.negatives; n++) {
            let target: number;
            let label: number;
            if (n === 0) {
              target = sentence[q];
              label = 1;
            } else {
              target = unigram[Math.floor(rng() * UNIGRAM_TABLE)];
              if (target === sentence[q]) continue;
              label = 0;
            }
            const o = target * D;
            let dot = 0;
            for (let j = 0; j < D; j++) dot += input[w + j] * output[o + j];
            const g = (label - (dot > 6 ? 1 : dot < -6 ? 0 : 1 / (1 + Math.exp(-dot)))) * lr;
            for (let j = 0; j < D; j++) {
              grad[j] += g * output[o + j];
              output[o + j] += g * input[w + j];
            }
          }
          for (let j = 0; j < D; j++) input[w + j] += grad[j];
        }
      }
      seen += doc.length;
    }
  }
  return { table: input, tokens: total, trained, seconds: (performance.now() - t0) / 1000, config: c };
}

/**
 * A table rescaled so that its values have standard deviation `sigma` (the static trainer's `initScale`), for use as
 * `init`; with `center`, each column's mean over the rows is removed first (word2vec vectors share a common direction,
 * which a mean over a text's tokens would keep).
 */
export function rescaleTable(table: Float32Array, sigma: number, opts: { dim?: number; center?: boolean } = {}): Float32Array {
  const out = Float32Array.from(table);
  if (opts.center) {
    const D = opts.dim ?? 0;
    if (!(Number.isInteger(D) && D >= 1 && out.length % D === 0)) throw new EoError('INVALID_ARGUMENT', `rescaleTable: center needs the row width dim (got ${opts.dim} for ${out.length} values)`);
    const rows = out.length / D;
    const mean = new Float64Array(D);
    for (let i = 0; i < out.length; i++) mean[i % D] += out[i] / rows;
    for (let i = 0; i < out.length; i++) out[i] -= mean[i % D];
  }
  let s = 0;
  for (const x of out) s += x * x;
  const rms = Math.sqrt(s / Math.max(1, out.length));
  const k = rms > 0 ? sigma / rms : 0;
  for (let i = 0; i < out.length; i++) out[i] *= k;
  return out;
}
