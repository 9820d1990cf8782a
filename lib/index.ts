/**
 * EO Workbench's root API: the query path and one entry per stage of the paper's Figure 1, in layer order. Every
 * stage is its own entry point with its full API, `eo-workbench/<stage>` (package.json "exports"), e.g.
 * `import { bm25Scores } from 'eo-workbench/retrieve'`; notebooks and scripts import the rest from there. Adding a
 * name here is a decision: test/public-api.test.ts lists them. Nothing under lib/ imports this file.
 */

// ── Errors: every deliberate failure is an EoError with a code
export { EoError, isEoError, type EoErrorCode } from './errors';

// ── The query path: one engine, one search for a question, one batch for evaluation runs
export {
  DEFAULT_RANKING, loadSearchEngine, search, searchBatch, type SearchEngine, type SearchOptions, type SearchResponse,
} from './search';

// ── One entry per stage
export { loadSnapshot, type Corpus, type Publication } from './data';
export { loadOrBuildBenchmark, type Benchmark } from './bench';
export { createEncoder, type SentenceEncoder } from './encode';
export { loadOrBuildBm25 } from './retrieve';
export { analyticAlpha, fuseConvex } from './fuse';
export { finetuneUseLite, loadOrTrainNnssc, trainNnssc } from './train';
export { routeQuery } from './router';
export { listwiseReranker, offlineReranker } from './rerank';
export { agenticReranker } from './agent';
export { evaluateRun, summarize, type MetricRow } from './metrics';
export { judgeRun } from './judge';
export { studyHybrid } from './study';
export { createLlmClient } from './llm';
export { buildTable2 } from './report';
export { createSearchServer } from './serve';
