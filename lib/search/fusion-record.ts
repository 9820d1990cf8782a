import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import { checkpointsDir, repoRoot } from '../util/paths';
import { EoError, isEoError } from '../errors';
import { trainingAlpha, type AlphaMethod } from '../fuse/grid';
import { isConvexAlpha } from '../fuse/alpha';
import type { CorpusScorer } from '../retrieve/scorers';
import { writeJsonAtomic } from '../util/fs';
import { readJsonRecordHash, sha256, shortHash, withJsonRecordHash } from '../util/hash';
import { retrievalRuleId, retrievalTextOf } from '../router/parse';

/** Format version of fusion records; a record of another version is ignored (recomputed). */
export const FUSION_RECORD_VERSION = 1;

/** What a fusion weight depends on. Two records with the same key hold the same α. */
export interface FusionRecordKey {
  /** `Corpus.hash`: the datasets scored. */
  corpusHash: string;
  /** `benchmarkSplitHash` of the training split α was set on (query ids and texts, judged datasets). */
  benchmarkHash: string;
  /** The semantic scorer's fingerprint (weights hash / encoder id), `scorerFingerprint`. */
  semantic: string;
  /** The lexical scorer's fingerprint. */
  lexical: string;
  method: AlphaMethod;
  /** `retrievalRuleId()`: the query rewrite the training queries went through. */
  queryText: string;
  /**
   * Where the semantic scorer's training-split scores come from when they are not its own (in-sample) scores:
   * `cross-fitted k=5 <folds hash>` for out-of-fold scores (`crossFittedNnsscScores`). Absent: in-sample.
   */
  semanticScores?: string;
}

/** The one stored fusion weight per key: `checkpoints/fusion/<method>-<semantic id>-<key hash>.json`. */
export interface FusionRecord {
  version: number;
  key: FusionRecordKey;
  alpha: number;
  method: AlphaMethod;
  /** π of each scorer alone on the training split. */
  piSemantic: number;
  piLexical: number;
  /** Grid only: π (train) at each α. */
  curve?: { alpha: number; value: number }[];
  trainQueries: number;
  semanticLabel: string;
  lexicalLabel: string;
  created: string;
}

/** Default folder of fusion records: `<repo>/checkpoints/fusion`. */
export function defaultFusionDir(): string {
  return checkpointsDir('fusion');
}

/** A scorer's identity for stored results: its fingerprint, else its id. */
export function scorerFingerprint(s: CorpusScorer): string {
  return s.fingerprint ?? s.id;
}

/** Content hash of a benchmark split: its query ids and texts and its judgements (what α is set on). */
export function benchmarkSplitHash(view: Pick<BenchSplitView, 'queries' | 'qrels'>): string {
  const queries = view.queries.map((q) => [q.id, q.text] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const qrels = [...view.qrels.entries()].map(([q, m]) => [q, [...m.entries()].sort()] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return sha256(JSON.stringify({ queries, qrels })).slice(0, 16);
}

/** The key of the fusion weight of two scorers on a training split. */
export function fusionRecordKey(corpus: Pick<Corpus, 'hash'>, train: Pick<BenchSplitView, 'queries' | 'qrels'>, semantic: CorpusScorer, lexical: CorpusScorer, method: AlphaMethod, semanticScores?: string): FusionRecordKey {
  return {
    corpusHash: corpus.hash, benchmarkHash: benchmarkSplitHash(train), semantic: scorerFingerprint(semantic), lexical: scorerFingerprint(lexical), method, queryText: retrievalRuleId(),
    ...(semanticScores ? { semanticScores } : {}),
  };
}

/** File of a key's record under `dir`. */
export function fusionRecordFile(key: FusionRecordKey, semanticId: string, dir = defaultFusionDir()): string {
  const safe = semanticId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  return path.join(dir, `${key.method}-${safe}-${shortHash(JSON.stringify(key), 16)}.json`);
}

/**
 * The stored record of this key, or null (absent, another version or key, unreadable, or not matching the content
 * hash it recorded — a flipped digit of α — or recording none: then it is recomputed, never read wrong).
 */
export function readFusionRecord(key: FusionRecordKey, semanticId: string, dir = defaultFusionDir()): FusionRecord | null {
  const file = fusionRecordFile(key, semanticId, dir);
  if (!fs.existsSync(file)) return null;
  try {
    const { record: r, status } = readJsonRecordHash(JSON.parse(fs.readFileSync(file, 'utf8')) as FusionRecord);
    if (status !== 'ok') return null;
    if (r.version !== FUSION_RECORD_VERSION || JSON.stringify(r.key) !== JSON.stringify(key) || !isConvexAlpha(r.alpha)) return null;
    return r;
  } catch {
    return null;
  }
}

export interface FusionAlphaOptions {
  corpus: Corpus;
  /** The TRAINING split (never the test split). */
  train: BenchSplitView;
  semantic: CorpusScorer;
  lexical: CorpusScorer;
  /** Default `analytic` (paper Eq. 7). */
  method?: AlphaMethod;
  /**
   * Both scorers' full score vectors on `train.queries` (in that order, scored on `retrievalTextOf`), when the
   * caller has them; default: scored here.
   */
  trainScores?: { semantic: readonly Float32Array[]; lexical: readonly Float32Array[] };
  /**
   * The semantic training scores are not the scorer's own but, e.g., out-of-fold ones (`crossFittedNnsscScores`): what
   * they are (`cross-fitted k=5 <folds hash>`), part of the record's key. Needs `trainScores`. Default: in-sample.
   */
  semanticScores?: string;
  /** Folder of the records. Default `defaultFusionDir()`. */
  dir?: string;
  /** One line when α is computed and stored (not when it is read). Default: none. */
  log?: (line: string) => void;
}

/**
 * The fusion weight of two scorers: read from its stored record, or set on the training split (`trainingAlpha`:
 * Eq. 7 or grid) and stored once (atomic write). The only way α reaches the search path, the notebooks and the
 * rerank backbones. A computed α that cannot be stored (DISK_FULL, NOT_WRITABLE) is still returned, for this run,
 * with `notStored` saying why (and `log` saying so); it is computed again next time.
 */
export async function fusionAlpha(opts: FusionAlphaOptions): Promise<{ record: FusionRecord; file: string; reused: boolean; notStored?: string }> {
  const method = opts.method ?? 'analytic';
  if (opts.semanticScores && !opts.trainScores) throw new EoError('INVALID_ARGUMENT', `fusionAlpha: semanticScores "${opts.semanticScores}" needs the trainScores it names`);
  const key = fusionRecordKey(opts.corpus, opts.train, opts.semantic, opts.lexical, method, opts.semanticScores);
  const file = fusionRecordFile(key, opts.semantic.id, opts.dir);
  const stored = readFusionRecord(key, opts.semantic.id, opts.dir);
  if (stored) return { record: stored, file, reused: true };
  if (opts.train.queries.length === 0) throw new EoError('INVALID_ARGUMENT', 'fusionAlpha: the training split has no queries');
  let scores = opts.trainScores;
  if (scores && (scores.semantic.length !== opts.train.queries.length || scores.lexical.length !== opts.train.queries.length))
    throw new EoError('INVALID_ARGUMENT', `fusionAlpha: ${scores.semantic.length}/${scores.lexical.length} score vectors for ${opts.train.queries.length} training queries`);
  if (!scores) {
    const texts = opts.train.queries.map((q) => retrievalTextOf(q.text));
    scores = { semantic: await opts.semantic.scoreBatch(texts), lexical: await opts.lexical.scoreBatch(texts) };
  }
  const a = trainingAlpha(method, {
    semantic: scores.semantic, lexical: scores.lexical, queryIds: opts.train.queries.map((q) => q.id), qrels: opts.train.qrels,
    datasetIds: opts.corpus.datasets.map((d) => d.id),
  });
  const record: FusionRecord = {
    version: FUSION_RECORD_VERSION, key, alpha: a.alpha, method, piSemantic: a.piSemantic, piLexical: a.piLexical, ...(a.curve ? { curve: a.curve } : {}),
    trainQueries: a.queries, semanticLabel: opts.semantic.label, lexicalLabel: opts.lexical.label, created: new Date().toISOString(),
  };
  const set = `fusion weight α = ${a.alpha.toFixed(3)} (${method}${opts.semanticScores ? `, ${opts.semanticScores} semantic scores` : ''}) set on ${a.queries} training queries for ${opts.semantic.label} + ${opts.lexical.label}`;
  try {
    writeJsonAtomic(file, withJsonRecordHash(record));
  } catch (e) {
    if (!isEoError(e, 'DISK_FULL') && !isEoError(e, 'NOT_WRITABLE')) throw e;
    opts.log?.(`${set}; used for this run but not stored (${e.code}: ${e.message}), so it is set again next time`);
    return { record, file, reused: false, notStored: `${e.code}: ${e.message}` };
  }
  opts.log?.(`${set}; stored in ${path.relative(repoRoot(), file)}`);
  return { record, file, reused: false };
}

/** One line for humans: where a record's α comes from (`notStored`: why a computed α could not be stored). */
export function describeFusionRecord(r: FusionRecord, file: string, notStored?: string): string {
  const how = `${r.method === 'analytic' ? 'analytic (Eq. 7)' : 'grid search of π'}${r.key.semanticScores ? ` on ${r.key.semanticScores} semantic scores` : ''}`;
  if (notStored) return `${how} on ${r.trainQueries} training queries, set for this run only: not stored in ${path.relative(repoRoot(), file)} (${notStored})`;
  return `${how} on ${r.trainQueries} training queries, stored in ${path.relative(repoRoot(), file)}`;
}
