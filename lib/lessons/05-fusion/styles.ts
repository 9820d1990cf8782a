// Notebook 05, section 10: Table 2's systems and the default ranking on the benchmark of real query styles (its test
// half, never tuned on), then the default ranking on the title queries.
import { readTuningLog, tuningLogSentence } from '../../bench/tuning-log';
import { isEoError } from '../../errors';
import { relevantSet } from '../../metrics/metrics';
import { evaluateSystems, pairedComparisons, pairedTable } from '../../metrics/systems';
import type { Run } from '../../metrics/types';
import { loadSearchEngine, type LoadSearchEngineOptions } from '../../search/engine';
import { IDENTIFIER_KINDS, TYPE_KINDS } from '../../search/identifiers';
import {
  buildRerankFieldIndexes, heldOutRerankQueries, LEARNED_RERANK_SETTINGS, learnedRerankScores, rankedRerankRows, RERANK_TRAINING_NOW, rerankExamples, trainLearnedReranker,
} from '../../search/learned-rerank';
import { buildStyleBenchmark } from '../../bench/styles/build';
import { runFromScores } from '../../retrieve/scorers';
import { DEFAULT_STATIC_PRF } from '../../retrieve/static-scorer';
import { searchBatch } from '../../search/retrieve-batch';
import { hybridStyleRuns, styleRows, styleRuns, type StyleRow } from '../../study/style-eval';
import type { SearchEngine } from '../../search/types';
import { showMarkdown, showTable } from '../../report/display';
import { toDataFrame } from '../../report/frame';
import { styleTableRows, styleVerdict } from '../../report/styles';
import type { TableRow, TableSource } from '../../report/types';
import type { Corpus } from '../../data/types';
import type { FusionLesson, Table2SectionInputs } from './lesson';
import { FUSION_TEXT_KEYS } from './text-keys';

const BEFORE = 'Before this change (exact NN-SSC, analytic α, period/place rule)';
/** NN-SSC's own adaptive settings, chosen with it on the style dev half (`bench/default-ranking-tune.cjs --only semantic`). */
const NNSSC_ADAPTIVE = { startAlpha: 0.15, l2: 0.02 };
/** The ablation row whose static half takes its feedback from its own first datasets instead of BM25's. */
export const SELF_SEEDED_ROW = `Default − BM25-seeded static feedback (its own first ${DEFAULT_STATIC_PRF.k})`;
/** The strong short baseline's label (lib/retrieve/bm25-stop.ts): a reference row beside BM25. */
const BM25_STOP = 'BM25-stop';


/** What section 10's first step computed (results.json `styles.table2`): Table 2's systems per style, and their runs. */
export interface StyleTable2Result {
  source: TableSource;
  runs: Map<string, Run>;
  table2: StyleRow[];
  /** Table 2's systems against BM25-stop (empty when it was not scored). */
  table2VsBm25Stop: StyleRow[];
}

/** What the default ranking's step computed (results.json `styles.ranking`, `styles.rankingVsBm25Stop`). */
export interface DefaultRankingResult {
  ranking: StyleRow[];
  /** The default ranking and its ablations against BM25-stop (empty when it was not scored). */
  rankingVsBm25Stop: StyleRow[];
}

/** What the title comparison computed (results.json `styles.titleDefault`, `styles.titlePaired`). */
export interface TitleDefaultResult {
  titleDefault: TableRow[];
  titlePaired: TableRow[];
}

/** Table 2's systems as the paper fuses them (one α per hybrid, from the title training split; no query rules), per style. */
export function table2StyleSection({ lesson, plan, hybrids }: Pick<Table2SectionInputs, 'lesson' | 'plan' | 'hybrids'>): StyleTable2Result {
  const { corpus, styles } = lesson;
  const scoredStyles = Object.fromEntries(Object.entries(plan.scored).map(([id, s]) => [id, s.styles]));
  const runs = hybridStyleRuns(corpus, scoredStyles, Object.entries(hybrids).map(([sem, h]) => ({
    label: `${plan.scored[sem].scorer.label} + BM25 (analytic α ${h.analytic.alpha!.toFixed(3)})`, semantic: sem, lexical: 'bm25', alpha: h.analytic.alpha!,
  })), styles.queries);
  const table2 = styleRows(runs, styles.queries, styles.qrels, 'BM25');
  const source = { settings: { benchmark: 'eo-styles (lib/bench/styles)', half: 'test', queries: styles.queries.length, reference: 'BM25', bootstrap: 10000, permutations: 10000, seed: 42 } };
  showTable(toDataFrame(styleTableRows(table2.filter((r) => r.style === 'all'), { reference: 'BM25' })), { title: 'Table 2\'s systems on the style benchmark\'s test half (all styles)', digits: 4, source });
  // the same rows against the strong short baseline, where it was scored (its settings were chosen on the dev half)
  const table2VsBm25Stop = runs.has(BM25_STOP) ? styleRows(runs, styles.queries, styles.qrels, BM25_STOP) : [];
  if (table2VsBm25Stop.length) {
    showTable(toDataFrame(styleTableRows(table2VsBm25Stop.filter((r) => r.style === 'all'), { reference: BM25_STOP })), { title: `Table 2's systems against ${BM25_STOP} on the style benchmark's test half (all styles)`, digits: 4, source });
  }
  showMarkdown(table2VsBm25Stop.length ? tuningLogSentence(readTuningLog()) : '', { key: FUSION_TEXT_KEYS.styleTuningLog });
  return { source, runs, table2, table2VsBm25Stop };
}

/** Label of the default ranking with the learned reranker over its top 100 as a last step (a reported row). */
export const LEARNED_RERANK_ROW = 'Default + learned reranker (top 100)';

/**
 * The default ranking reranked by the learned reranker (lib/search/learned-rerank.ts) on the style TEST half: trained
 * with the settings chosen on the dev half (LEARNED_RERANK_SETTINGS) on the dev half's queries plus corpus-made queries
 * the static encoder never saw. Null (and said) when nothing could train it (the sample snapshot may lack examples).
 */
async function learnedRerankRun(lesson: FusionLesson, engine: SearchEngine): Promise<Run | null> {
  const { corpus, styles } = lesson;
  const fields = buildRerankFieldIndexes(corpus);
  const styleBench = buildStyleBenchmark(corpus);
  const dev = styleBench.queries.filter((q) => q.split === 'dev').map((q) => ({ id: q.id, text: q.text }));
  const devRelevant = dev.map((q) => relevantSet(styleBench.qrels.get(q.id)));
  const heldOut = heldOutRerankQueries(corpus, lesson.train, lesson.test);
  const examples = [
    ...rerankExamples(corpus, await rankedRerankRows(engine, fields, dev), devRelevant),
    ...rerankExamples(corpus, await rankedRerankRows(engine, fields, heldOut, { now: RERANK_TRAINING_NOW }), heldOut.map((q) => q.relevant)),
  ];
  let model;
  try {
    model = trainLearnedReranker(examples, LEARNED_RERANK_SETTINGS);
  } catch (e) {
    if (!isEoError(e, 'INVALID_ARGUMENT')) throw e;
    showMarkdown(`The learned reranker has no row here: ${e.message}.`, { key: FUSION_TEXT_KEYS.learnedRerank });
    return null;
  }
  showMarkdown('', { key: FUSION_TEXT_KEYS.learnedRerank });
  console.log(`learned reranker: trained on ${model.trainQueries.used} queries (${dev.length} dev, ${heldOut.length} corpus-made held out), ${model.model.pairs} pairs; weights ${model.model.features.map((f, j) => `${f} ${model.model.weights[j].toFixed(3)}`).join(', ')}`);
  const ranked = await rankedRerankRows(engine, fields, styles.queries);
  return runFromScores(styles.queries.map((q) => q.id), ranked.map((r) => learnedRerankScores(model, r.final, r.rows)), corpus, 100);
}

/** How the process fitting the section's fusion records beside the notebook ended (`prefitDefaultRanking`): its exit code (null when killed) and signal. */
export interface PrefitOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what the process wrote to stderr (its error, when it failed; at most 2,000 characters), else ''. */
  said: string;
}

/** The engines of the default-ranking section: the default, the ranking before it, and one per ablation. */
export interface DefaultRankingEngines {
  defaultEngine: SearchEngine;
  beforeEngine: SearchEngine;
  nnsscEngine: SearchEngine;
  analyticEngine: SearchEngine;
  plainLexicalEngine: SearchEngine;
  selfSeededEngine: SearchEngine;
  /** All of them, to free. */
  all: SearchEngine[];
}

/**
 * Load the default-ranking section's engines (`loadSearchEngine`: each sets and stores its fusion record on the
 * training split where none is stored yet); `log` is the default engine's.
 */
export async function loadDefaultRankingEngines(corpus: Corpus, sample: boolean, log?: (line: string) => void): Promise<DefaultRankingEngines> {
  const defaultEngine = await loadSearchEngine(corpus, { sample, log });
  // NN-SSC where its checkpoint loads, else USE-lite cosine: the semantic half before the static encoder (issue 39 step 2)
  const nnsscOrCosine = async (o: LoadSearchEngineOptions) => {
    try {
      return await loadSearchEngine(corpus, { sample, ...o, semantic: 'nnssc' });
    } catch (e) {
      if (!isEoError(e)) throw e;
      return loadSearchEngine(corpus, { sample, ...o, semantic: 'use-lite' });
    }
  };
  const beforeEngine = await nnsscOrCosine({ fusion: 'analytic', nnsscTwoStage: false, identifiers: { mode: 'off' } });
  const nnsscEngine = await nnsscOrCosine({ adaptive: NNSSC_ADAPTIVE });
  const analyticEngine = await loadSearchEngine(corpus, { sample, fusion: 'analytic' });
  const plainLexicalEngine = await loadSearchEngine(corpus, { sample, lexical: 'bm25' });
  // the static half's feedback seeded by its own first datasets, as the encoder alone has it (issue 39)
  const selfSeededEngine = await loadSearchEngine(corpus, { sample, staticPrf: DEFAULT_STATIC_PRF });
  const all = [defaultEngine, beforeEngine, nnsscEngine, analyticEngine, plainLexicalEngine, selfSeededEngine];
  return { defaultEngine, beforeEngine, nnsscEngine, analyticEngine, plainLexicalEngine, selfSeededEngine, all };
}

/**
 * The default ranking and one ablation per feature, per style, paired with BM25 and with the ranking before it (its
 * engines are loaded here and freed at the end; with `prefit`, once the records fitted beside the notebook are stored).
 */
export async function defaultRankingSection(lesson: FusionLesson, st: StyleTable2Result, prefit?: Promise<PrefitOutcome>): Promise<DefaultRankingResult> {
  const { corpus, sample, styles } = lesson;
  // the engines' fusion records fitted beside the notebook (prefitDefaultRanking): wait for them rather than fit them twice
  const fitted = prefit ? await prefit : null;
  if (fitted && fitted.code !== 0) {
    const why = fitted.said.trim().split('\n').filter((l) => l.trim()).slice(0, 3).join(' / ');
    console.log(`the fusion records' fitting beside the notebook ended with ${fitted.signal ?? `code ${fitted.code}`}${why ? ` (${why})` : ''}: the engines set what is missing here`);
  }
  const engines = await loadDefaultRankingEngines(corpus, sample, (l) => console.log(l));
  const { defaultEngine, beforeEngine, nnsscEngine, analyticEngine, plainLexicalEngine, selfSeededEngine } = engines;
  const rankingSystems = [
    { label: 'Default ranking', engine: defaultEngine, rules: true },
    { label: 'Default − identifier rule', engine: { ...defaultEngine, identifierRule: { mode: 'off' as const } }, rules: true },
    { label: 'Default − GCMD types in the query', engine: { ...defaultEngine, identifierRule: { ...(defaultEngine.identifierRule ?? {}), kinds: IDENTIFIER_KINDS.filter((k) => !TYPE_KINDS.includes(k)) } }, rules: true },
    { label: 'Default − query repair', engine: defaultEngine, rules: true, repair: false },
    { label: 'Default − adaptive α (analytic α)', engine: analyticEngine, rules: true },
    { label: 'Default − static encoder (NN-SSC two-stage)', engine: nnsscEngine, rules: true },
    { label: 'Default − vocabulary expansion (plain BM25)', engine: plainLexicalEngine, rules: true },
    { label: SELF_SEEDED_ROW, engine: selfSeededEngine, rules: true },
    { label: BEFORE, engine: beforeEngine, rules: true, repair: false },
  ];
  const rankingRuns = await styleRuns(rankingSystems, styles.queries);
  const reranked = await learnedRerankRun(lesson, defaultEngine);
  if (reranked) rankingRuns.set(LEARNED_RERANK_ROW, reranked);
  rankingRuns.set('BM25', st.runs.get('BM25')!);
  if (st.runs.has(BM25_STOP)) rankingRuns.set(BM25_STOP, st.runs.get(BM25_STOP)!);
  const rankingRows = styleRows(rankingRuns, styles.queries, styles.qrels, 'BM25');
  console.log(`default: ${defaultEngine.label}; α from ${defaultEngine.fusion.source}`);
  showTable(toDataFrame(styleTableRows(rankingRows.filter((r) => ['BM25', 'Default ranking', BEFORE].includes(r.system)), { reference: 'BM25' })),
    { title: 'The default ranking per query style, test half (Δ nDCG@10 vs BM25 alone)', digits: 4, maxRows: 100, source: st.source });
  showTable(toDataFrame(styleTableRows(rankingRows.filter((r) => r.style === 'all'), { reference: 'BM25' })), { title: 'Ablations of the default ranking (all styles, test half)', digits: 4, source: st.source });
  showMarkdown(styleVerdict(rankingRows, { system: 'Default ranking', reference: 'BM25', split: 'test' }), { key: FUSION_TEXT_KEYS.rankingVsBm25 });
  const rankingVsBm25Stop = rankingRuns.has(BM25_STOP) ? styleRows(rankingRuns, styles.queries, styles.qrels, BM25_STOP) : [];
  if (rankingVsBm25Stop.length) {
    showTable(toDataFrame(styleTableRows(rankingVsBm25Stop.filter((r) => r.system === 'Default ranking' || r.system === BM25_STOP), { reference: BM25_STOP })),
      { title: `The default ranking per query style against ${BM25_STOP} alone, test half`, digits: 4, maxRows: 100, source: st.source });
  }
  showMarkdown(rankingVsBm25Stop.length ? styleVerdict(rankingVsBm25Stop, { system: 'Default ranking', reference: BM25_STOP, split: 'test' }) : '', { key: FUSION_TEXT_KEYS.rankingVsBm25Stop });
  const beforeRows = styleRows(rankingRuns, styles.queries, styles.qrels, BEFORE);
  showMarkdown(styleVerdict(beforeRows, { system: 'Default ranking', reference: 'the ranking before this change', split: 'test' }).replace('**the ranking before this change**', 'the ranking before this change'), { key: FUSION_TEXT_KEYS.rankingVsBefore });
  for (const e of engines.all) e.dispose();
  return { ranking: rankingRows, rankingVsBm25Stop };
}

/** The default ranking on Table 2's title test queries beside BM25 and the analytic-α NN-SSC + BM25 row (its own engine, freed at the end). */
export async function titleDefaultSection(lesson: FusionLesson, runOf: (id: string) => Run | undefined, hybridRows: { id: string; label: string; run: Run }[], source: TableSource): Promise<TitleDefaultResult> {
  const { corpus, sample, test } = lesson;
  const engine = await loadSearchEngine(corpus, { sample, log: (l) => console.log(l) });
  const titleDefault = await searchBatch(engine, test.queries, { rules: true, repair: true });
  engine.dispose();
  const titleSystems = [
    { id: 'default-ranking', label: 'Default ranking', run: titleDefault.run },
    { id: 'bm25', label: 'BM25', run: runOf('bm25')! },
    ...hybridRows,
  ];
  const titleEval = evaluateSystems(titleSystems, test.qrels);
  showTable(toDataFrame(titleEval.rows), { title: 'The default ranking on the title queries (test split)', digits: 4, source });
  const titlePaired = pairedComparisons(titleEval.perQuery['default-ranking'], titleEval.perQuery.bm25, 'Default ranking', 'BM25');
  showTable(toDataFrame(pairedTable(titlePaired)), { title: 'Default ranking − BM25 on the title queries: paired randomization p and bootstrap 95% CI', digits: 4, source });
  return { titleDefault: titleEval.rows as unknown as TableRow[], titlePaired: titlePaired as unknown as TableRow[] };
}
