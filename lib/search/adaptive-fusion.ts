/**
 * The per-query α of the search path (`lib/fuse/adaptive.ts` holds the model): what it is trained on, its stored
 * record, and its features on a live query.
 *
 * Trained on: the title benchmark's TRAINING split plus queries in the users' styles made from dataset fields
 * (`corpusStyleQueries`: keyword, identifier-led and question style), never a test query; datasets that are test
 * labels of the title benchmark and of the style benchmark (`adaptiveExcludedIds`) are left out of the corpus-made
 * queries too. Each training query's AP is measured on the ranking the user would see: fused
 * at each grid α, then shaped by the query rules (period/place and named identifiers).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { testLabelIds } from '../bench/test-labels';
import type { BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import { EoError, isEoError } from '../errors';
import { adaptiveAlphaOf, checkAdaptiveAlphaModel, fitAdaptiveAlpha, fusionFeatures, FUSION_FEATURES, type AdaptiveAlphaModel, type AdaptiveAlphaRow, type FusionQueryShape } from '../fuse/adaptive';
import { minMaxNormalize } from '../fuse/minmax';
import type { FusionSpec } from '../fuse/scorer';
import { averagePrecision, relevantSet } from '../metrics/metrics';
import { bm25Tokens } from '../retrieve/bm25';
import type { CorpusScorer } from '../retrieve/scorers';
import { topKIndices } from '../retrieve/topk';
import { parseQuery } from '../router/parse';
import { corpusStyleQueries } from '../train/corpus-pairs';
import { writeJsonAtomic } from '../util/fs';
import { readJsonRecordHash, shortHash, withJsonRecordHash } from '../util/hash';
import { checkpointsDir, repoRoot } from '../util/paths';
import { gcmdTypeVocabulary } from './gcmd-types';
import { applyIdentifierRule, carriesGroup, TYPE_KINDS, type IdentifierRule, type NamedIdentifier } from './identifiers';
import { applyQueryRules, queryIdentifiers } from './rules';
import { retrievalRuleId, retrievalTextOf } from '../router/parse';
import type { SearchEngine } from './types';

/** Format version of adaptive-fusion records. */
export const ADAPTIVE_RECORD_VERSION = 1;

/** α grid the training APs are measured on. */
export const ADAPTIVE_ALPHA_GRID: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);

/** A stored adaptive-α model with what it was trained on. */
export interface AdaptiveFusionRecord {
  version: number;
  key: Record<string, string | number>;
  model: AdaptiveAlphaModel;
  /** Training queries by source (`title`, `keywordStyle`, …). */
  queries: Record<string, number>;
  semanticLabel: string;
  lexicalLabel: string;
  created: string;
}

/** One training query: its text and relevant dataset ids. */
export interface AdaptiveTrainingQuery {
  id: string;
  text: string;
  relevant: ReadonlySet<string>;
  source: string;
}

export interface AdaptiveTrainingOptions {
  /** Corpus-made queries per style. Default 300. */
  perStyle?: number;
  /** Seed of the corpus-made queries. Default 42. */
  seed?: number;
  /** Dataset ids kept out of the corpus-made queries (e.g. the test labels of every benchmark). Default none. */
  excludeDatasetIds?: ReadonlySet<string>;
}

/**
 * Dataset ids no corpus-made training query may have as a positive: every label (any grade) of the title benchmark's
 * TEST split, of the style benchmark's TEST half (`testLabelIds`), and `extra`. What `loadSearchEngine` passes.
 */
export function adaptiveExcludedIds(corpus: Corpus, titleTest: Pick<BenchSplitView, 'qrels'>, extra: Iterable<string> = []): Set<string> {
  return new Set([...extra, ...testLabelIds(corpus, titleTest).ids]);
}

/**
 * Training options whose corpus-made queries the static encoder never saw as pairs: another seed than its own (42),
 * and no dataset its own style queries had as a positive, nor any test label of either benchmark
 * (`adaptiveExcludedIds`). Its scores on them are not memorised, unlike on its own pairs.
 */
export function heldOutTrainingOptions(corpus: Corpus, titleTrain: Pick<BenchSplitView, 'queries' | 'qrels'>, titleTest: Pick<BenchSplitView, 'qrels'>, opts: { perStyle?: number; seed: number }): AdaptiveTrainingOptions {
  const exclude = adaptiveExcludedIds(corpus, titleTest);
  const encoderPositives = adaptiveTrainingQueries(corpus, titleTrain, { excludeDatasetIds: exclude }).flatMap((q) => [...q.relevant]);
  return { perStyle: opts.perStyle, seed: opts.seed, excludeDatasetIds: new Set([...exclude, ...encoderPositives]) };
}

/** The training queries: the TRAINING split plus corpus-made queries in the users' styles. */
export function adaptiveTrainingQueries(corpus: Corpus, train: Pick<BenchSplitView, 'queries' | 'qrels'>, opts: AdaptiveTrainingOptions = {}): AdaptiveTrainingQuery[] {
  const out: AdaptiveTrainingQuery[] = [];
  for (const q of train.queries) {
    const rel = relevantSet(train.qrels.get(q.id));
    if (rel.size) out.push({ id: q.id, text: q.text, relevant: rel, source: 'title' });
  }
  const exclude = new Set<number>();
  for (const id of opts.excludeDatasetIds ?? []) {
    const i = corpus.indexById.get(id);
    if (i !== undefined) exclude.add(i);
  }
  for (const q of corpusStyleQueries(corpus, { perStyle: opts.perStyle ?? 300, seed: opts.seed ?? 42, excludeRows: exclude }))
    out.push({ id: q.id, text: q.text, relevant: new Set(q.positives.map((r) => corpus.datasets[r].id)), source: q.kind });
  return out;
}

/** A query that reads as a question or a request: a question word or "I want/need…" first, or a question mark. */
const QUESTION_FORM = /^\s*(?:how|what|which|where|when|why|who|is|are|does|do|did|can|could|has|have|i|we|my|our|please|find|show|give|looking)\b|\?\s*$/i;

/** How the query reads: its words, how many of them name identifiers, question form, capitalised words, a GCMD type named. */
export function queryWordCounts(text: string, named: readonly NamedIdentifier[], original = text): Required<FusionQueryShape> {
  const words = bm25Tokens(text).length;
  // a GCMD type ("lidar") is no name of one thing: its words are not identifier words (the feature the model was fitted on)
  const identifierWords = named.reduce((s, n) => s + (TYPE_KINDS.includes(n.group.kind) ? 0 : bm25Tokens(n.text).length), 0);
  const raw = original.match(/[\p{L}][\p{L}\p{N}'-]*/gu) ?? [];
  const capitalized = raw.filter((w) => /^\p{Lu}\p{Ll}/u.test(w)).length;
  const typeNamed = named.some((n) => !n.context && TYPE_KINDS.includes(n.group.kind));
  return { words, identifierWords: Math.min(words, identifierWords), questionForm: QUESTION_FORM.test(original), capitalizedShare: raw.length ? capitalized / raw.length : 0, typeNamed };
}

/**
 * The share of the query's named identifiers (those named as the wanted data, not as context) that dataset i
 * carries, from the GCMD metadata the identifier rule reads; null when the query names none.
 */
export function namedCarrierShare(named: readonly NamedIdentifier[]): ((i: number) => number) | null {
  const wanted = named.filter((n) => !n.context);
  if (!wanted.length) return null;
  return (i) => wanted.reduce((s, n) => s + (carriesGroup(n.group, i) ? 1 : 0), 0) / wanted.length;
}

/** The fusion features of one query (FUSION_FEATURES order) on its two scorers' raw scores. */
export function queryFusionFeatures(text: string, named: readonly NamedIdentifier[], lexical: ArrayLike<number>, semantic: ArrayLike<number>, original = text): number[] {
  return fusionFeatures(queryWordCounts(text, named, original), lexical, semantic, namedCarrierShare(named));
}

/** α of one live query under an adaptive model. */
export function queryAdaptiveAlpha(model: AdaptiveAlphaModel, text: string, named: readonly NamedIdentifier[], lexical: Float32Array, semantic: Float32Array, original = text): number {
  return adaptiveAlphaOf(model, queryFusionFeatures(text, named, lexical, semantic, original));
}

/** The fusion of one query: the engine's spec, or with an adaptive engine a convex fusion at the query's own α. */
export function queryFusionSpec(engine: Pick<SearchEngine, 'fusion'>, retrievalText: string, named: readonly NamedIdentifier[], lexical: Float32Array, semantic: Float32Array, original = retrievalText): FusionSpec {
  const a = engine.fusion.adaptive;
  return a ? { method: 'convex', alpha: queryAdaptiveAlpha(a.model, retrievalText, named, lexical, semantic, original) } : engine.fusion.spec!;
}

/** The day the training queries' open periods are read against (fixed, so a record does not depend on the clock). */
const TRAINING_NOW = new Date('2025-02-01T00:00:00Z');

/**
 * Training rows of the adaptive model: features and AP@100 at each grid α of the rule-shaped fused ranking.
 * The period/place and identifier rules only multiply scores by per-dataset factors, so the factors are computed
 * once per query and applied at every α.
 */
export async function adaptiveAlphaRows(
  engine: Pick<SearchEngine, 'corpus' | 'identifierRule'>, lexical: CorpusScorer, semantic: CorpusScorer, queries: readonly AdaptiveTrainingQuery[],
  opts: { grid?: readonly number[]; identifierRule?: IdentifierRule; depth?: number } = {},
): Promise<AdaptiveAlphaRow[]> {
  const grid = opts.grid ?? ADAPTIVE_ALPHA_GRID;
  const depth = opts.depth ?? 100;
  const texts = queries.map((q) => retrievalTextOf(q.text));
  const lex = await lexical.scoreBatch(texts);
  const sem = await semantic.scoreBatch(texts);
  const ids = engine.corpus.datasets.map((d) => d.id);
  const n = ids.length;
  const ones = new Float32Array(n).fill(1);
  const fused = new Float32Array(n);
  return queries.map((q, qi) => {
    const named = queryIdentifiers(engine, texts[qi]);
    const parsed = parseQuery(q.text, { now: TRAINING_NOW });
    // the period/place rule multiplies scores by per-dataset factors (read once); the identifier rule depends on
    // the ranking itself (its window), so it is applied at every α
    const factors = applyQueryRules(engine, parsed, ones, texts[qi], { identifiers: { mode: 'off' } }, []).scores;
    const idRule = opts.identifierRule ?? engine.identifierRule ?? {};
    const ln = minMaxNormalize(lex[qi]);
    const sn = minMaxNormalize(sem[qi]);
    const ap = grid.map((a) => {
      for (let i = 0; i < n; i++) fused[i] = (a * sn[i] + (1 - a) * ln[i]) * factors[i];
      const ruled = named.length && idRule.mode !== 'off' ? applyIdentifierRule(fused, named, idRule).scores : fused;
      const ranked = topKIndices(ruled, depth, ids).map((i) => ({ docId: ids[i], score: ruled[i] }));
      return averagePrecision(ranked, q.relevant as Set<string>);
    });
    return { features: queryFusionFeatures(texts[qi], named, lex[qi], sem[qi], q.text), ap };
  });
}

/** Default folder of adaptive-fusion records: `checkpoints/fusion`. */
function recordDir(dir?: string): string {
  return dir ?? checkpointsDir('fusion');
}

export interface AdaptiveFusionOptions {
  corpus: Corpus;
  /** The title benchmark's TRAINING split. */
  train: BenchSplitView;
  lexical: CorpusScorer;
  semantic: CorpusScorer;
  /** The analytic α of the same scorers (the model's start). */
  startAlpha: number;
  identifierRule?: IdentifierRule;
  training?: AdaptiveTrainingOptions;
  l2?: number;
  dir?: string;
  /** Only read a stored model (null when there is none); never fit. Default false. */
  readOnly?: boolean;
  log?: (line: string) => void;
}

/**
 * The adaptive model of two scorers: read from its stored record, or fitted (`fitAdaptiveAlpha`) on the training
 * queries and stored once.
 */
export async function adaptiveFusion(opts: AdaptiveFusionOptions): Promise<{ record: AdaptiveFusionRecord; file: string; reused: boolean; notStored?: string } | null> {
  const queries = adaptiveTrainingQueries(opts.corpus, opts.train, opts.training);
  const key = {
    corpusHash: opts.corpus.hash,
    queries: shortHash(queries.map((q) => `${q.id}\t${q.text}\t${[...q.relevant].sort().join(',')}`).join('\n'), 16),
    semantic: opts.semantic.fingerprint ?? opts.semantic.id,
    lexical: opts.lexical.fingerprint ?? opts.lexical.id,
    rules: JSON.stringify(opts.identifierRule ?? {}),
    // the rule's GCMD types and how many datasets carry each: the training targets follow them
    types: shortHash(JSON.stringify(gcmdTypeVocabulary(opts.corpus).types.map((t) => [t.term.id, t.carriers.length])), 16),
    queryText: retrievalRuleId(),
    startAlpha: opts.startAlpha,
    l2: opts.l2 ?? 0.002,
    grid: ADAPTIVE_ALPHA_GRID.length,
    features: FUSION_FEATURES.join(','),
  };
  const safe = opts.semantic.id.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  const file = path.join(recordDir(opts.dir), `adaptive-${safe}-${shortHash(JSON.stringify(key), 16)}.json`);
  if (fs.existsSync(file)) {
    try {
      // a record that does not match the content hash it stored (an edited coefficient) is never read: fitted again
      const { record: r, status } = readJsonRecordHash(JSON.parse(fs.readFileSync(file, 'utf8')) as AdaptiveFusionRecord);
      if (status !== 'ok') opts.log?.(`${path.relative(repoRoot(), file)}: ${status === 'none' ? 'records no content hash' : 'does not match the content hash it recorded (damaged or changed)'}; the adaptive fusion weight is fitted again`);
      else if (r.version === ADAPTIVE_RECORD_VERSION && JSON.stringify(r.key) === JSON.stringify(key)) {
        checkAdaptiveAlphaModel(r.model, file);
        return { record: r, file, reused: true };
      }
    } catch {
      // unreadable or of another version: fitted again below
    }
  }
  if (opts.readOnly) return null;
  if (queries.length === 0) throw new EoError('INVALID_ARGUMENT', 'adaptiveFusion: no training queries');
  opts.log?.(`fitting the adaptive fusion weight on ${queries.length} training queries once…`);
  const rows = await adaptiveAlphaRows({ corpus: opts.corpus, identifierRule: opts.identifierRule }, opts.lexical, opts.semantic, queries, { identifierRule: opts.identifierRule });
  const model = fitAdaptiveAlpha(rows, { grid: ADAPTIVE_ALPHA_GRID, startAlpha: opts.startAlpha, l2: opts.l2 });
  const bySource: Record<string, number> = {};
  for (const q of queries) bySource[q.source] = (bySource[q.source] ?? 0) + 1;
  const record: AdaptiveFusionRecord = {
    version: ADAPTIVE_RECORD_VERSION, key, model, queries: bySource, semanticLabel: opts.semantic.label, lexicalLabel: opts.lexical.label, created: new Date().toISOString(),
  };
  const fitted = `adaptive fusion: training MAP ${model.trainMap.start.toFixed(4)} at α = ${opts.startAlpha.toFixed(3)} → ${model.trainMap.fitted.toFixed(4)}`;
  try {
    writeJsonAtomic(file, withJsonRecordHash(record));
  } catch (e) {
    // a model that cannot be stored is still used for this run (and fitted again next time)
    if (!isEoError(e, 'DISK_FULL') && !isEoError(e, 'NOT_WRITABLE')) throw e;
    opts.log?.(`${fitted}; used for this run but not stored (${e.code}: ${e.message}), so it is fitted again next time`);
    return { record, file, reused: false, notStored: `${e.code}: ${e.message}` };
  }
  opts.log?.(`${fitted}; stored in ${path.relative(repoRoot(), file)}`);
  return { record, file, reused: false };
}

/** One line: where the adaptive α comes from (`notStored`: why a fitted model could not be stored). */
export function describeAdaptiveRecord(r: AdaptiveFusionRecord, file: string, notStored?: string): string {
  const n = Object.values(r.queries).reduce((s, x) => s + x, 0);
  const what = `adaptive α per query (start α ${r.model.startAlpha.toFixed(3)}, fitted on ${n} training queries: ${Object.entries(r.queries).map(([k, v]) => `${v} ${k}`).join(', ')})`;
  return notStored ? `${what}, set for this run only: not stored in ${path.relative(repoRoot(), file)} (${notStored})` : `${what}, stored in ${path.relative(repoRoot(), file)}`;
}
