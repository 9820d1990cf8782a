/**
 * Leakage audit of a benchmark split: test queries that are near-duplicates of a training query (the same
 * question reaches the trained scorer and the test). Token Jaccard over an inverted index (candidates share at
 * least one token), and, when an embedding function is given, cosine of unit vectors.
 */
import { dotProduct } from '../util/vector';
import type { Benchmark, BenchQuery } from './types';

/** Token Jaccard at or above which two queries count as near-duplicates. 0.8: same question, a word or two changed. */
export const LEAKAGE_JACCARD_THRESHOLD = 0.8;
/** Embedding cosine at or above which two queries count as near-duplicates (unit vectors). */
export const LEAKAGE_COSINE_THRESHOLD = 0.95;
/** The build warns when more than this many test queries have a near-duplicate in train. */
export const LEAKAGE_WARN_ABOVE = 0;

export interface LeakageOptions {
  /** Token Jaccard threshold. Default `LEAKAGE_JACCARD_THRESHOLD` (0.8). */
  jaccard?: number;
  /** Cosine threshold (used only with `embed`). Default `LEAKAGE_COSINE_THRESHOLD` (0.95). */
  cosine?: number;
  /** Unit-vector embeddings of query texts, aligned with the input; absent = Jaccard only. */
  embed?: (texts: string[]) => Promise<Float32Array[]> | Float32Array[];
}

/** One test query with a near-duplicate training query, and the publications they come from. */
export interface LeakagePair {
  testQueryId: string;
  testPublicationId: string;
  testText: string;
  trainQueryId: string;
  trainPublicationId: string;
  trainText: string;
  jaccard: number;
  /** null without embeddings. */
  cosine: number | null;
  /** Which rule matched. */
  by: ('jaccard' | 'cosine')[];
}

export interface LeakageAudit {
  /** Test queries with at least one near-duplicate in train (the number the build warns on). */
  count: number;
  testQueries: number;
  trainQueries: number;
  jaccardThreshold: number;
  /** null without embeddings. */
  cosineThreshold: number | null;
  /** Each test query's closest training match (highest Jaccard, then cosine), best first. */
  pairs: LeakagePair[];
}

/** Lower-case word tokens of a query (letters and digits), as a set. */
export function queryTokenSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>, shared: number): number {
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** Near-duplicate test/train query pairs of a benchmark (see `LeakageOptions` for the thresholds). */
export async function leakageAudit(bench: Pick<Benchmark, 'queries'>, opts: LeakageOptions = {}): Promise<LeakageAudit> {
  const jt = opts.jaccard ?? LEAKAGE_JACCARD_THRESHOLD;
  const ct = opts.cosine ?? LEAKAGE_COSINE_THRESHOLD;
  const train = bench.queries.filter((q) => q.split === 'train');
  const test = bench.queries.filter((q) => q.split === 'test');
  // Prefix filtering (Chaudhuri et al. 2006): with tokens in one global order (rarest first), two sets with
  // Jaccard ≥ t share a token among the first |A| − ⌈t·|A|⌉ + 1 of each, so only those prefixes are indexed and
  // probed; every candidate is then checked exactly. Keeps ~20k titles fast despite tokens like "the" and "of".
  const df = new Map<string, number>();
  const sets = new Map<BenchQuery, string[]>();
  for (const q of [...train, ...test]) {
    const toks = [...queryTokenSet(q.text)];
    sets.set(q, toks);
    for (const t of toks) df.set(t, (df.get(t) ?? 0) + 1);
  }
  for (const toks of sets.values()) toks.sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
  const prefix = (toks: string[]) => toks.slice(0, toks.length - Math.ceil(jt * toks.length - 1e-9) + 1);
  const trainTokens = train.map((q) => new Set(sets.get(q)!));
  const index = new Map<string, number[]>();
  train.forEach((q, i) => { for (const t of prefix(sets.get(q)!)) { const l = index.get(t); if (l) l.push(i); else index.set(t, [i]); } });
  let trainVec: Float32Array[] | null = null;
  let testVec: Float32Array[] | null = null;
  if (opts.embed && train.length && test.length) {
    trainVec = await opts.embed(train.map((q) => q.text));
    testVec = await opts.embed(test.map((q) => q.text));
  }
  const pairs: LeakagePair[] = [];
  test.forEach((q, qi) => {
    const toks = new Set(sets.get(q)!);
    const candidates = new Set<number>();
    for (const t of prefix(sets.get(q)!)) for (const i of index.get(t) ?? []) candidates.add(i);
    const sharedWith = (i: number) => { let n = 0; for (const t of toks) if (trainTokens[i].has(t)) n++; return n; };
    let best: LeakagePair | null = null;
    const consider = (i: number, jac: number) => {
      const cos = trainVec && testVec ? dotProduct(testVec[qi], trainVec[i]) : null;
      const by: LeakagePair['by'] = [];
      if (jac >= jt) by.push('jaccard');
      if (cos !== null && cos >= ct) by.push('cosine');
      if (!by.length) return;
      if (best && (best.jaccard > jac || (best.jaccard === jac && (best.cosine ?? 0) >= (cos ?? 0)))) return;
      const t: BenchQuery = train[i];
      best = { testQueryId: q.id, testPublicationId: q.publicationId, testText: q.text, trainQueryId: t.id, trainPublicationId: t.publicationId, trainText: t.text, jaccard: jac, cosine: cos, by };
    };
    if (trainVec) for (let i = 0; i < train.length; i++) consider(i, jaccard(toks, trainTokens[i], sharedWith(i)));
    else for (const i of candidates) consider(i, jaccard(toks, trainTokens[i], sharedWith(i)));
    if (best) pairs.push(best);
  });
  pairs.sort((a, b) => b.jaccard - a.jaccard || (b.cosine ?? 0) - (a.cosine ?? 0) || a.testQueryId.localeCompare(b.testQueryId));
  return { count: pairs.length, testQueries: test.length, trainQueries: train.length, jaccardThreshold: jt, cosineThreshold: opts.embed ? ct : null, pairs };
}

/** The audit as table rows for a notebook cell: one per leaking test query. */
export function leakageRows(a: LeakageAudit, limit = 20): Record<string, string | number | null>[] {
  return a.pairs.slice(0, limit).map((p) => ({
    'test query': p.testText, 'test publication': p.testPublicationId, 'train query': p.trainText, 'train publication': p.trainPublicationId,
    jaccard: Number(p.jaccard.toFixed(3)), cosine: p.cosine === null ? null : Number(p.cosine.toFixed(3)),
  }));
}

/** One line: the count against the split sizes and thresholds. */
export function leakageSummary(a: LeakageAudit): string {
  return `${a.count} of ${a.testQueries} test queries have a near-duplicate among ${a.trainQueries} training queries ` +
    `(token Jaccard ≥ ${a.jaccardThreshold}${a.cosineThreshold === null ? '' : ` or embedding cosine ≥ ${a.cosineThreshold}`})`;
}
