import * as path from 'node:path';
import { EoError } from '../../errors';
import type { Corpus } from '../../data/types';
import type { Qrels } from '../../metrics/types';
import { shortHash } from '../../util/hash';
import { stratifiedSample } from '../split';
import { compileStyleRule, loadStyleTopics, datasetsMatchingRule, styleQueryText } from './rules';
import {
  QUERY_STYLES,
  type BuildStyleBenchmarkOptions,
  type DroppedStyleQuery,
  type DroppedStyleTopic,
  type QueryStyle,
  type StyleBenchmark,
  type StyleQuery,
  type StyleSplit,
  type StyleSplitView,
  type StyleStatsRow,
  type StyleQueryOverride,
  type StyleTopic,
  type StyleTopicLabels,
} from './types';

/** Defaults of `buildStyleBenchmark`: split seed and the share of topics on the test side. */
export const STYLE_BENCHMARK_DEFAULTS = { seed: 42, testFraction: 0.5 } as const;

/** The 200-dataset sample snapshot (`loadSnapshot({ sample: true })`) is read from a folder named `sample`. */
function isSampleCorpus(corpus: Corpus): boolean {
  return path.basename(corpus.origin.replace(/[\\/]+$/, '')) === 'sample';
}

/**
 * Topic-level split: every query of a topic on the same side, so a need never appears on both. Stratified by the
 * topic's discipline with `stratifiedSample`: round(topics × testFraction) topics go to test, allocated to the
 * disciplines in proportion with largest remainders (so many small strata do not all round the same way) and drawn
 * with the seed. Depends only on the topic ids, disciplines and seed (not on file order or the corpus).
 */
export function styleTopicSplit(topics: readonly StyleTopic[], seed: number = STYLE_BENCHMARK_DEFAULTS.seed, testFraction: number = STYLE_BENCHMARK_DEFAULTS.testFraction): Map<string, StyleSplit> {
  if (!(testFraction > 0 && testFraction < 1)) throw new EoError('INVALID_ARGUMENT', `testFraction must be in (0,1), got ${testFraction}`);
  const items = topics.map((t) => ({ id: t.id, stratum: t.discipline }));
  const test = new Set(stratifiedSample(items, Math.round(items.length * testFraction), seed));
  return new Map(topics.map((t) => [t.id, test.has(t.id) ? 'test' : 'dev']));
}

/**
 * The labels of one topic on a corpus, sorted ids: `exact` (grade 2), `family` (grade 1: what the family rule selects
 * minus exact, since every exact dataset belongs to the family) and `familyRuleOnly` (the family rule alone, corpus
 * order: the strict check that the rule selects something).
 */
export function styleTopicSelection(corpus: Corpus, topic: StyleTopic, source = 'topics'): { exact: string[]; family: string[]; familyRuleOnly: string[] } {
  const where = `${source} topic "${topic.id}"`;
  const exact = datasetsMatchingRule(corpus.datasets, compileStyleRule(topic.exact, `${where}.exact`));
  const familyRuleOnly = datasetsMatchingRule(corpus.datasets, compileStyleRule(topic.family, `${where}.family`));
  const exactSet = new Set(exact);
  const family = familyRuleOnly.filter((id) => !exactSet.has(id));
  return { exact: [...exact].sort(), family: family.sort(), familyRuleOnly };
}

/**
 * Grade-2 ids (sorted) of one query override: the datasets of the topic's family (`family` ∪ `exact` of
 * `styleTopicSelection`) that the override's `exact` rule selects. `where` names the override in errors.
 */
export function styleQueryOverrideSelection(corpus: Corpus, topicSelection: { exact: readonly string[]; family: readonly string[] }, override: StyleQueryOverride, where: string): string[] {
  const predicate = compileStyleRule(override.exact, where);
  const out: string[] = [];
  for (const id of [...topicSelection.exact, ...topicSelection.family]) if (predicate(corpus.datasets[corpus.indexById.get(id)!])) out.push(id);
  return out.sort();
}

/**
 * Build the style benchmark on a corpus: labels from each topic's rules (grade 2 `exact`, grade 1 `family`
 * minus exact), one query per listed text, the seeded topic-level dev/test split. A query written with an exact
 * override gets its own grade 2 (the family datasets the override selects) and grade 1 for the rest of the family.
 * A topic whose `exact` selects nothing on this corpus is dropped (listed in `droppedTopics`), and a query whose
 * override selects no family dataset is dropped (listed in `droppedQueries`), unless `strict`, where either — or a
 * `family` rule that selects nothing — is an `EoError('BENCH')` naming the topic, the query and the field.
 */
export function buildStyleBenchmark(corpus: Corpus, opts: BuildStyleBenchmarkOptions = {}): StyleBenchmark {
  const topics = opts.topics ?? loadStyleTopics();
  const seed = opts.seed ?? STYLE_BENCHMARK_DEFAULTS.seed;
  const testFraction = opts.testFraction ?? STYLE_BENCHMARK_DEFAULTS.testFraction;
  const strict = opts.strict ?? !isSampleCorpus(corpus);
  const split = styleTopicSplit(topics, seed, testFraction);
  const labels: StyleTopicLabels[] = [];
  const droppedTopics: DroppedStyleTopic[] = [];
  const droppedQueries: DroppedStyleQuery[] = [];
  const queries: StyleQuery[] = [];
  const qrels: Qrels = new Map();
  for (const topic of topics) {
    const sel = styleTopicSelection(corpus, topic);
    if (strict && sel.exact.length === 0) throw new EoError('BENCH', `topic "${topic.id}".exact selects no dataset of the corpus (${corpus.datasets.length} datasets)`, { topic: topic.id, field: 'exact' });
    if (strict && sel.familyRuleOnly.length === 0) throw new EoError('BENCH', `topic "${topic.id}".family selects no dataset of the corpus (${corpus.datasets.length} datasets)`, { topic: topic.id, field: 'family' });
    if (sel.exact.length === 0) {
      droppedTopics.push({ id: topic.id, reason: `exact selects no dataset of this corpus (${corpus.datasets.length} datasets)` });
      continue;
    }
    const side = split.get(topic.id)!;
    labels.push({ id: topic.id, split: side, discipline: topic.discipline, exact: sel.exact, family: sel.family });
    const grades = new Map<string, number>();
    for (const id of sel.family) grades.set(id, 1);
    for (const id of sel.exact) grades.set(id, 2);
    for (const style of QUERY_STYLES) {
      topic.queries[style].forEach((q, i) => {
        const id = `${topic.id}/${style}/${i + 1}`;
        const text = styleQueryText(q);
        if (typeof q === 'string') {
          queries.push({ id, topicId: topic.id, style, text, split: side, narrowed: false });
          qrels.set(id, new Map(grades));
          return;
        }
        const field = `queries.${style}[${i}].exact`;
        const exact = styleQueryOverrideSelection(corpus, sel, q, `topic "${topic.id}".${field}`);
        if (exact.length === 0) {
          const reason = `${field} (query ${id} ${JSON.stringify(text)}) selects no dataset of the topic's family on this corpus (${corpus.datasets.length} datasets)`;
          if (strict) throw new EoError('BENCH', `topic "${topic.id}".${reason}`, { topic: topic.id, query: id, field });
          droppedQueries.push({ id, reason });
          return;
        }
        // the topic's grade-2 datasets the override leaves out fall back to grade 1 (same family)
        const own = new Map(grades);
        for (const d of sel.exact) own.set(d, 1);
        for (const d of exact) own.set(d, 2);
        queries.push({ id, topicId: topic.id, style, text, split: side, narrowed: true });
        qrels.set(id, own);
      });
    }
  }
  return {
    name: 'eo-styles',
    corpusHash: corpus.hash,
    topicsHash: shortHash(JSON.stringify(topics)),
    seed,
    topics: labels,
    queries,
    qrels,
    split,
    droppedTopics,
    droppedQueries,
  };
}

/**
 * Every dataset id labelled (grade 1 or 2) by a topic on the TEST half: what anything trained or tuned must leave out
 * of its generated training queries (the adaptive α's corpus-made queries, the user-style NN-SSC queries), so no
 * style-test answer is ever a training positive. Sorted.
 */
export function styleTestLabelIds(bench: Pick<StyleBenchmark, 'topics'>): string[] {
  const ids = new Set<string>();
  for (const t of bench.topics) if (t.split === 'test') for (const id of [...t.exact, ...t.family]) ids.add(id);
  return [...ids].sort();
}

/** One side of the benchmark (optionally one style) in the shape `searchBatch` takes, with its qrels. */
export function styleBenchmarkSplit(bench: StyleBenchmark, split: StyleSplit, style?: QueryStyle): StyleSplitView {
  if (split !== 'dev' && split !== 'test') throw new EoError('INVALID_ARGUMENT', `split must be "dev" or "test", got ${JSON.stringify(split)}`);
  if (style !== undefined && !(QUERY_STYLES as readonly string[]).includes(style)) throw new EoError('INVALID_ARGUMENT', `style must be one of ${QUERY_STYLES.join(', ')}, got ${JSON.stringify(style)}`);
  const picked = bench.queries.filter((q) => q.split === split && (style === undefined || q.style === style));
  const qrels: Qrels = new Map();
  for (const q of picked) qrels.set(q.id, bench.qrels.get(q.id)!);
  return { queries: picked.map((q) => ({ id: q.id, text: q.text })), qrels };
}

function statsRow(bench: StyleBenchmark, style: QueryStyle | 'all', split: StyleSplit | 'all'): StyleStatsRow {
  const qs = bench.queries.filter((q) => (style === 'all' || q.style === style) && (split === 'all' || q.split === split));
  let exact = 0;
  let family = 0;
  for (const q of qs) {
    for (const g of bench.qrels.get(q.id)!.values()) {
      if (g === 2) exact++;
      else if (g === 1) family++;
    }
  }
  const n = qs.length;
  return { style, split, topics: new Set(qs.map((q) => q.topicId)).size, queries: n, meanExact: n ? exact / n : 0, meanFamily: n ? family / n : 0 };
}

/** Counts per style × split (each style, then `all`; splits dev, test, all). */
export function styleBenchmarkStats(bench: StyleBenchmark): StyleStatsRow[] {
  const rows: StyleStatsRow[] = [];
  for (const style of [...QUERY_STYLES, 'all'] as const) for (const split of ['dev', 'test', 'all'] as const) rows.push(statsRow(bench, style, split));
  return rows;
}

/** Table rows (plain strings and numbers, in display order) of `styleBenchmarkStats`, for a notebook or the README. */
export function styleBenchmarkReport(bench: StyleBenchmark): Record<string, string | number>[] {
  return styleBenchmarkStats(bench).map((r) => ({
    style: r.style,
    split: r.split,
    topics: r.topics,
    queries: r.queries,
    'grade-2 per query': Number(r.meanExact.toFixed(2)),
    'grade-1 per query': Number(r.meanFamily.toFixed(2)),
  }));
}
