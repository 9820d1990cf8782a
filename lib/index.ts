/**
 * EO Workbench public API: what a notebook or script needs, grouped by pipeline stage (lib/ folders, in layer
 * order; see DESIGN.md). Every stage is also its own entry point with its full API: `eo-workbench/<stage>`
 * (package.json "exports"), e.g. `import { bm25Scores } from 'eo-workbench/retrieve'`. Nothing under lib/ imports
 * this file (test/layering.test.ts).
 */

// ── Errors: every deliberate failure is an EoError with a code
export {
  EoError, isEoError, type EoErrorCode,
} from './errors';

// ── Utilities: atomic files, hashes, seeded random, repository paths, the prompt-file loader
export {
  benchDataDir, checkpointsDir, loadPromptTemplate, mulberry32, packageFile, recordingsDir, repoReportsDir,
  repoRelativePath, repoRoot, sha256, shortHash, writeFileAtomic, writeJsonAtomic, type PromptTemplate, type Rng,
} from './util';

// ── Checkpoint file format (what train writes and retrieve/encode read)
export {
  checkpointExists, loadCheckpoint, readCheckpointManifest, saveCheckpoint, type Checkpoint, type CheckpointInput,
  type CheckpointManifest, type TrainingData,
} from './store';

// ── TensorFlow.js backend; onnxruntime sessions (on the calling thread or the process's onnx worker thread)
export {
  openOnnxSession, stopOnnxWorkers, type OnnxSession, type OnnxThread,
  classifyNativeLoadError, getTf, initTfBackend, parseTfBackendName, tfBackendInfo, trainingProfileFor,
  wasmMatMulRoute, matMulModeFromEnv, TF_MATMUL_ENV, TF_MATMUL_THREADS_ENV, DEFAULT_MIN_MACS, type WasmMatMulRoute, type NativeLoadFailure, type TfBackendInfo, type TfBackendName, type TrainingProfile,
} from './tensor';

// ── LLM client: providers, record/replay, models.json
export {
  createLlmClient, createLlmClientFromEnv, llmModeFromEnv, llmRecordKey, loadModelsFile, memoryRecordStore,
  modelAvailability, openRecordStore, redactSecrets, toLlmComplete, type ChatMessage, type ChatRequest,
  type ChatResponse, type LlmClient, type LlmComplete, type LlmMode, type LlmRecord, type ModelConfig,
  type RecordStore, type ToolSpec,
} from './llm';

export { defaultModelsFilePath, formatCostPlan, getModelConfig, llmCostPlan, llmSpend, normalizeChatRequest, paperPlanStages, readBatchLog, runBatch } from './llm';

// ── Data: the snapshot (datasets, publications, links), CMR / KG / EO-Bench readers
export {
  buildCmrSearchUrl, checkEoBenchPositives, CMR_UMM_JSON_ACCEPT, cmrItemToDataset, collectCmrCollections,
  datasetEncoderText, datasetsByPublication, downloadCmrCorpus, EARTHDATA_TOKEN_ENV, eoBenchQrels, eoBenchSplit,
  formatEoBenchFieldMapping, formatKgCorpusReport, importEoBench, KG_CORPUS_PROPERTIES, kgToCorpus, loadEoBench,
  loadKgCorpus, loadSnapshot, makeCorpus, parseDelimited, parseRetryAfter, publicationIdFor, readKgExport,
  resolveDataDir, restrictEoBenchToCorpus, searchCmrCollections, splitFromFileName, streamKgCorpus, streamKgExport,
  type Corpus, type DatasetRecord, type LoadSnapshotOptions, type Publication, type PublicationLink,
} from './data';

// ── Metrics: R@K, MAP, MRR, TREC files, paired tests
export {
  compareSystems, evaluateRun, evaluateSystems, formatTrecQrels, formatTrecRun, METRIC_NAMES, pairedRows, pairedTest,
  parseTrecQrels, parseTrecRun, precisionAtFromJudge, readTrecQrels, sortRunEntries, summarize, winsLossesTies,
  writeRunFiles, type MetricName, type MetricRow, type PairedComparison, type Qrels, type Run, type RunEntry,
  type SystemRun,
} from './metrics';

// ── Benchmark: citation-grounded queries, labels, stratified split
export {
  BENCHMARK_DEFAULTS, NASA_EO_BENCH, benchmarkQrels, benchmarkSettings, benchmarkSplit, benchmarkStats, benchmarkTrainingData,
  buildBenchmark, type BenchmarkSettings, type BenchmarkStats,
  cleanWrittenQuery, defaultBenchmarkDir, eoBenchToBenchmark, exportBenchmark, llmQueryWriter, loadBenchmark,
  loadOrBuildBenchmark, loadQueryWriterPrompt, queryWriterMessages, stratifiedSample, stratifiedSplit,
  titleQueryWriter, type BenchLabel, type Benchmark, type BenchQuery, type BenchSplitView, type BuildBenchmarkOptions,
  type QueryWriter, type Split,
} from './bench';

export { queryWriterRequests } from './bench';

// ── Style benchmark: shipped topics in four user query styles, labels by reviewable rules (lib/bench/styles)
export {
  buildStyleBenchmark, loadStyleTopics, styleBenchmarkReport, styleBenchmarkSplit, styleBenchmarkStats, QUERY_STYLES,
  type QueryStyle, type StyleBenchmark, type StyleQuery, type StyleSplit, type StyleSplitView, type StyleTopic,
} from './bench';

// ── Encoders: USE-lite, embedding cache, micro-batching for a service
export {
  microBatchingEncoder, type MicroBatchOptions, workerEncoder, type WorkerEncoderOptions,
  defaultEmbeddingCacheDir, defaultUseLiteDir, disposeUseBatch, dot, embedCorpusCached, embeddingCachePaths,
  embedQueriesCached, encoderSlug, findEmbeddingCache, forwardUseLite, hashTexts, l2NormalizeInPlace, l2NormalizeRows,
  loadUseLite, loadUseLiteModel, loadUseTokenizer, makeTrainableUseLite, normalizeForUse, prepareUseBatch,
  readEmbeddingCache, runUseLite, tokenizeUse, trainableWeightValues, USE_LITE_DIM, useLiteTokens, useLiteWeights,
  useTokenPieces, writeEmbeddingCache, type EmbeddingCacheMeta, type EncoderSpec, type SentenceEncoder,
  type TrainableUseLite, type UseLiteOptions,
  // USE-lite's runtime: { runtime: 'tfjs' (default) | 'onnx' } on use-lite and use-lite-finetuned
  USE_LITE_ONNX_BACKEND, USE_LITE_RUNTIME_ENV, defaultUseLiteRuntime, type UseLiteRuntime,
  // bring-your-own encoder: --encoder / $EO_ENCODER = use-lite | onnx:<folder>
  chooseOnnxDevice, chosenEncoderSpec, createEncoder, encoderRunsOffEventLoop, withOnnxThread, hashModelFolder, inspectOnnxFolder, loadEncoder, loadOnnxEncoder,
  parseEncoderName, poolingFromConfig, type OnnxEncoderOptions, type OnnxPooling,
} from './encode';

// ── Retrieval: BM25, cosine, HNSW, NN-SSC scorers (microBatchingScorer: concurrent one-query calls share one call)
export {
  microBatchingScorer,
  annSearch, bm25Scorer, bm25Scores, bm25Tokens, buildBm25, buildHnsw, DenseOnnxIndex, denseScorer, defaultCosineKernel, COSINE_KERNEL_ENV, denseScores, denseScoresBatch, denseScoresExactBatch, denseTopK,
  hashMatrix, hnswCached, loadHnsw, loadNnsscCheckpoint, loadOrBuildBm25, meanScorer, meanScoreVectors, NnsscCorpusIndex, nnsscLogitReference,
  nnsscNaiveScores, NnsscOnnxIndex, nnsscParamCount, nnsscScorer, NnsscThreadedIndex, nnsscTwoStageScores, nnsscWeightsHash,
  openNnsscIndex, runFromScores, saveHnsw, scoreQueries, topK, topKHits, topKSet, twoStageCandidates, type Bm25Index,
  type CorpusScorer, type DenseScorer, type NnsscEngine, type NnsscIndex, type NnsscModel, type NnsscScorer, type ScoredHit,
  type ScoredRun,
} from './retrieve';

// ── Training: MNRL fine-tuning, NN-SSC, and one load-or-train helper per trained artefact
export {
  loadOrTrainFinetunedEncoder, loadOrTrainNnssc, nnsscTrainingPairs,
  type ArtefactMode, type FinetunedEncoderArtefact, type FinetuneTrainingSummary, type LoadOrTrainFinetunedEncoderOptions,
  type LoadOrTrainNnsscOptions, type NnsscArtefact, type NnsscTrainingSummary,
  corpusSelfSupervisedPairs, CORPUS_PAIR_KINDS, DEFAULT_CORPUS_PAIRS_OPTIONS, pairTextInEncoderText, abstractSentences,
  DEFAULT_NNSSC_SELF_SUPERVISED, nnsscSelfSupervisedIdentity, nnsscCheckpointName, finetuneCheckpointName, finetuneSelfSupervisedIdentity, finetuneExamplesFromCorpusPairs,
  type FinetuneSelfSupervisedConfig, type CorpusPair, type CorpusPairKind, type CorpusPairsOptions,
  type CorpusPairsResult, type NnsscSelfSupervisedConfig, type NnsscExtraPairs,
  batchesWithoutDuplicates, CPU_FINETUNE_CONFIG, DEFAULT_NNSSC_CONFIG, defaultFinetuneDir, defaultNnsscDir,
  disposeNnsscVariables, finetuneExamplesFromSplit, finetuneUseLite, initNnsscModel, loadFinetunedEncoder,
  makeNnsscBatch, mineHardNegatives, mnrlLoss, mnrlLossReference, nnsscLossAndGrads,
  nnsscLossReference, nnsscPositiveLoss, nnsscVariables, PAPER_FINETUNE_CONFIG, sampleRandomNegatives,
  saveNnsscCheckpoint, TINY_FINETUNE_CONFIG, trainNnssc, validationSplit, warmupLinearLr, type FinetuneConfig,
  type FinetuneExample, type FinetuneResult, type FinetuneStep, type FinetuneValidation, type NnsscCheckpointContext,
  type NnsscEpochLog, type NnsscTrainConfig, type NnsscTrainResult,
  defaultTrainingConfig, PAPER_NNSSC_CONFIG, type DefaultTrainingConfig,
} from './train';

// ── Fusion: min-max, convex fusion, analytic α (Eq. 7) and grid α on the training split, R2, RRF
export {
  analyticAlpha, analyticAlphaReport, competitionRanks, DEFAULT_ALPHA_GRID, explainFused, fuseConvex, fuseConvexParts,
  fusedScorer, gridSearchAlpha, meanDirection, minMaxNormalize,
  performanceIndex, r2Encoder, r2Transform, removeDirection, RRF_K, rrfScorer, rrfScores, trainingAlpha,
  type AlphaGridResult, type AlphaMethod, type FusedExplanation, type FusedScorer, type FusedScores, type FusionSpec,
  type TrainingAlpha,
} from './fuse';

// ── Router: query parsing and tool routing
export {
  appliedTools, corpusShortNameResolver, evaluateRouter, findPlaces, findVariables, loadGazetteer, loadGcmdKeywords,
  decideTools, decideToolsLlm, loadLabelledQueries, loadVariableIndex, parsePeriod, parseQuery,
  parseRouterReply, polygonsBBox, retrievalText, retrievalTextOf, routeQuery, routeQueryLlm, TOOL_NAMES, type LabelledRouterQuery, type ParsedQuery, type RouteResult,
  type RouterLlmClient, type ToolDecision, type ToolName,
} from './router';

// ── Rerank: listwise LLM (Algorithm 1), offline reranker, tables
export {
  listwiseReranker, llmRerankerLabel, llmRerankPlan, mergeRerankTables, OFFLINE_FEATURES, offlineReranker, rerankBackbone, rerankList,
  rerankMetricRows, rerankTable, rerankTableRows, runFromLists, table4, table5, writeTraceFiles, type Backbone,
  backboneRows, costRows, distinctMetricRows, distinctOutcomes, firstToolTrace, guardRemovalRows, llmPlanRows, offlineWeightRows,
  rerankGainPerQuery, repairRows, rerankerLabel, rerankSystemRuns, toolCallRows, toolCallsPerQuery, toolUseRows,
  type BackboneList, type RerankCandidate, type RerankedRun, type Reranker, type RerankOutcome, type RerankQuery, type RerankResult,
  type RerankTable,
} from './rerank';

export { describePayloadFields, importRerankPayloads, listwiseBatchRequests, listwiseMessages, loadListwisePrompt, parseRanking, payloadFieldMap } from './rerank';

// ── Judge: LLM P@K relevance judge
export {
  createLlmJudge, defaultJudgePromptPath, judgeMessages, judgeRun, judgeRunRow, loadJudgePrompt, openJudgeCache,
  parseJudgeAnswer, type JudgeRunResult, type JudgeVerdict, type LlmJudge,
} from './judge';

export { isJudgeRefusal, judgeBatchRequests, judgeColumns, judgeFailureNote, judgeVsCitation, kendallTauB } from './judge';

export { llmJudgePlan, plannedJudge, type JudgePlan } from './judge';

// ── Agentic rerank: tools, leakage guard, routed reranker
export {
  agenticReranker, agentReportRows, arxivSearchTool, buildLocalPublicationIndex, localArxivTool, localDatasetDocsTool,
  openToolStore, recordedTool, routedOfflineReranker, searxngProvider, sourcePublicationLookup,
  trainRoutedReranker, webSearchProviderFromEnv, webSearchTool, type AgentOptions, type AgentTool, type ToolResult,
} from './agent';

export { agentMessages, loadAgenticPrompt } from './agent';

export { agentTraceRows, queryMargins, routingSweep, singleShotVsAgentic, type AgenticPair, type RoutingSweepRow } from './agent';

// ── Search: the one query path (parse once → route → retrieve → fuse with the stored α → rerank → explanation),
//    its batch form (evaluation runs, rerank backbones, the fusion study) and the fusion records α is read from
export {
  backboneLists, buildHybridBackbone, cmrConceptUrl, createSearchEngine, describeFusionRecord, earthdataSearchUrl, explainResult, fuseBatch, fusionAlpha, fusionRecordFile, fusionRecordKey,
  SELF_SUPERVISED_SCORERS, selfSupervisedPlainId, selfSupervisedTrainCommand, selfSupervisedCheckpointDir, loadSelfSupervisedScorers,
  type SelfSupervisedScorerSpec, type FoundSelfSupervisedScorer,
  loadNnsscScorer, loadSearchEngine, trainingPublications, trainingPublicationTool, nnsscCheckpointDir, prepareRerankExperiment, rankedDatasets, readFusionRecord,
  retrieveBatch, retrieveSplits, scoreQuery,
  search, searchBatch, studyHybrid, trainingLinks, type BatchResult, type EngineFusion,
  type FusedSplitRuns, type FusionRecord, type FusionRecordKey, type HybridStudy, type LoadSearchEngineOptions,
  type RankedDataset, type RerankExperiment, type SearchEngine, type SearchOptions, type SearchResponse,
  type SplitScores, type StudySplits,
} from './search';

// ── The default ranking (one place), the named-identifier rule, per-query (adaptive) fusion, per-style evaluation
export {
  DEFAULT_RANKING, adaptiveFusion, applyIdentifierRule, applyQueryRules, identifierVocabulary, namedIdentifiers, hybridStyleRuns, scoreStyleQueries, styleRows, styleRuns,
  type DefaultRanking, type IdentifierRule, type NamedIdentifier, type ScoredStyleQueries, type StyleHybrid, type StyleRow, type StyleSystem, type StyledQuery,
} from './search';
export { styleTableRows, styleVerdict } from './report';
export { corpusStyleQueries, CORPUS_STYLE_KINDS, type CorpusStyleQuery } from './train';
export { evaluateGraded, GRADED_METRIC_NAMES, gradedMeans, gradedPaired, ndcgAt, type GradedPerQuery } from './metrics';
export { fitAdaptiveAlpha, fusionFeatures, FUSION_FEATURES, type AdaptiveAlphaModel } from './fuse';

// ── Search filters and facets, CMR-like (provider, platform, instrument, level, temporal, bounding box)
export {
  applyFilters, computeFacets, DEFAULT_FACET_DEPTH, parseFilterParams, type FacetCounts, type FilterEffect, type IgnoreParsed, type SearchFilters,
} from './search';

// ── Service: HTTP server and web page over lib/search
export {
  checkK, checkQuery, createSearchServer, escapeHtml, SERVICE_ENCODER_SPEC, SERVE_PROCESS, type SearchServerOptions,
} from './serve';

// ── Reports: tables, figures, results files
export {
  ablationRows, alphaCurveFigure, alphaRows, barFigure, buildTable2, chromiumExecutable, closeFigureRenderer,
  fusionDiscussion, gainFigure, gainRows, heatmapFigure, histogramFigure, hybridGains, mostHelpedQuery, perQueryGain,
  progress, rankedDatasetRows, reportsDir, scatterFigure, scoreGeometryFigure, showFigure, showMarkdown, showTable,
  TABLE2_ROWS, SELF_SUPERVISED_TABLE2_ROWS, selfSupervisedTable2Rows, selfSupervisedPairedRows, selfSupervisedNote, table2RowId, table2Systems, trainingCost, writeResults, writeTable2RunFiles, type Figure,
  benchmarkQueryRows, benchmarkSizeRows, datasetsPerDaacFigure, finetuneLearningCurveFigure, finetuneStepLine,
  finetuneTrainingLine, finetuneValidationLine, finetuneValidationRows, hardNegativeRows, nnsscEpochLine,
  nnsscLearningCurveFigures, nnsscTrainingLine, perQueryScatterFigure, positivesPerQueryFigure, settingRows,
  splitBalanceFigure, splitBalanceRows, type PerQueryGain, type Table2, type Table2RowSpec, type Table2System, type TableRow, type TrainingCost,
} from './report';

export { paperCostPlanTable } from './report';
// ── Teaching notebooks 03–05: generated text, the paper's Table 2 numbers, Table 2 views and the "Try it" knobs
export {
  alphaTryIt, checkRatioClaim, JUDGE_COLUMNS, metricsVerdict, PAPER_TABLE2, PAPER_TABLE2_CLAIM, pairedSentence, pairedVerdict,
  paperComparisonSentence, paperReportsRow, paperTable2Value, sampleNote, sourceCaption, table2BestColumns, table2GainPairs, trainingVerdict, finetuneVerdict, nnsscVerdict, resultVerdict, TABLE2_DIFFERENCES, runFilesSource, tryItVerdict,
  table2Hybrids, table2Rows, toDataFrame, withJudgeColumns, withPaperColumns, alphaTryItVerdict, alphaVerdict, gainsVerdict,
  strongestSemantic, table2JudgeColumns, ablationVerdict, type AlphaTryIt, type PaperRatioClaim, type PaperTable2Row,
} from './report';
export { paperContrastSentence, table2Verdict } from './lessons';
export { finetuneTryDir, tryFinetuneSchedule, tryNnsscNegatives, type TryItResult } from './train';
export { fuseSplitAtAlpha } from './search';
// ── Query repair (search/repair.ts): misspellings against the corpus vocabulary, abbreviations and acronyms, another language noted
export { buildRepairVocabulary, describeRepair, loadRepairVocabulary, repairQuery, type QueryRepair, type RepairChange, type RepairOptions, type RepairVocabulary } from './search';
// ── Notebook 05's seed section: NN-SSC over several seeds (bench/nnssc-seeds.cjs), read from its JSON
export {
  readSeedSpread, seedEpochRows, seedSpreadCommand, seedSpreadFiles, seedSpreadMissing, seedSpreadRows, seedSpreadVerdict, type SeedSpread,
} from './report';
// ── Teaching notebooks 00–02, 08: text generated from the numbers under each result, the scale model's table
export {
  benchmarkVerdict, benchmarkVsPaperRows, daacVerdict, datasetsPerDaacRows, defaultPaperScaleFile, fallThroughMisses, firstRelevantRank,
  knobText, knobVerdict, PAPER_SCALE_COMMAND, paperScaleMissing, paperScaleRows, paperScaleVerdict, readPaperScale, relevantInTop,
  routedSearchRows, routedSearchVerdict, routerLabelRows, routerScoreRows, routerSummaryRows, routerVerdict, showRoutedSearch,
  splitKnobVerdict, tourPublication, tourVerdict, type PaperScale,
} from './report';

// (the rerank notebooks' report views — cost plans, judge columns, generated summaries — come from eo-workbench/report)
