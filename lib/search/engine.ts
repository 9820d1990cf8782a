import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkSplit } from '../bench/build';
import { benchmarkSettings, loadBenchmark } from '../bench/export';
import type { Benchmark } from '../bench/types';
import { repoRoot } from '../util/paths';
import { datasetEncoderText } from '../data/text';
import type { Corpus } from '../data/types';
import { cacheRebuildCommand } from '../data/snapshot';
import { embedCorpusCached } from '../encode/cache';
import type { EncoderSpec, SentenceEncoder } from '../encode/types';
import type { OnnxThread } from '../tensor/onnx-session';
import { chosenEncoderSpec, createEncoder, encoderRunsOffEventLoop, withOnnxThread } from '../encode/registry';
import { microBatchingEncoder, type MicroBatchOptions } from '../encode/microbatch';
import { workerEncoder } from '../encode/worker-encoder';
import { EoError, isEoError } from '../errors';
import { assertConvexAlpha, RRF_K, type AlphaMethod, type FusionSpec } from '../fuse';
import { loadOrBuildBm25 } from '../retrieve/bm25';
import { loadOrTrainStaticModel } from '../train/static-artefact';
import { DEFAULT_STATIC_PRF, staticCosineScorer } from '../retrieve/static-scorer';
import { densePrfText, type DensePrf } from '../retrieve/prf';
import { bm25StopScorer, buildBm25Stop } from '../retrieve/bm25-stop';
import { bm25Scorer, denseScorer, type CorpusScorer } from '../retrieve/scorers';
import { microBatchingScorer } from '../retrieve/microbatch';
import { corpusShortNameResolver } from '../router/route';
import { loadVariableIndex, type VariableIndex } from '../router/variables';
import { describeFusionRecord, fusionAlpha, fusionRecordFile, fusionRecordKey, readFusionRecord } from './fusion-record';
import { loadNnsscScorer, type LoadNnsscOptions } from './nnssc';
import type { EngineFusion, SearchEngine } from './types';
import { adaptiveExcludedIds, adaptiveFusion, describeAdaptiveRecord } from './adaptive-fusion';
import { DEFAULT_RANKING } from './default-ranking';
import type { IdentifierRule } from './identifiers';
import { DEFAULT_EXPANSION_WEIGHT, expandedBm25Scorer, loadQueryVocabulary } from './expand';

/** Label of an engine from its parts. */
function engineLabel(lexical: CorpusScorer | null, semantic: CorpusScorer | null, fusion: EngineFusion): string {
  if (!semantic) return lexical!.label;
  if (!lexical) return semantic.label;
  const how = fusion.spec?.method === 'rrf' ? `RRF k=${fusion.spec.k}` : fusion.adaptive ? `adaptive α (start ${(fusion.spec as { alpha: number }).alpha.toFixed(3)})` : `α = ${(fusion.spec as { alpha: number }).alpha.toFixed(3)}`;
  return `${lexical.label} + ${semantic.label}, ${how}`;
}

/**
 * An engine from ready parts (tests, notebooks that already hold their scorers). `fusion` is required when both
 * scorers are given; `source` says where α comes from.
 */
export function createSearchEngine(corpus: Corpus, parts: {
  lexical: CorpusScorer | null;
  semantic: CorpusScorer | null;
  fusion?: FusionSpec;
  source?: string;
  recordFile?: string;
  /** Adaptive fusion: α per query from this model (its start α is `fusion.alpha`). */
  adaptive?: EngineFusion['adaptive'];
  /** The named-identifier rule. Default `DEFAULT_RANKING.identifiers`. */
  identifierRule?: IdentifierRule;
  /** The router's variable vocabulary. Default: the process-wide one (GCMD keywords of the default data folder). */
  variables?: VariableIndex;
  dispose?: () => void;
}): SearchEngine {
  const { lexical, semantic } = parts;
  if (!lexical && !semantic) throw new EoError('INVALID_ARGUMENT', 'createSearchEngine: needs a lexical or a semantic scorer');
  let fusion: EngineFusion;
  if (lexical && semantic) {
    if (!parts.fusion) throw new EoError('INVALID_ARGUMENT', 'createSearchEngine: two scorers need a fusion (convex with α, or rrf)');
    if (parts.fusion.method === 'convex') assertConvexAlpha(parts.fusion.alpha, 'search engine fusion');
    if (parts.adaptive && parts.fusion.method !== 'convex') throw new EoError('INVALID_ARGUMENT', 'createSearchEngine: adaptive fusion is convex (give its start α as fusion)');
    fusion = { mode: parts.fusion.method, spec: parts.fusion, source: parts.source ?? 'given', recordFile: parts.recordFile, ...(parts.adaptive ? { adaptive: parts.adaptive } : {}) };
  } else fusion = { mode: lexical ? 'lexical' : 'semantic', spec: null, source: `${(lexical ?? semantic)!.label} alone (no fusion)` };
  return {
    corpus, lexical, semantic, fusion, label: engineLabel(lexical, semantic, fusion),
    resolveShortName: corpusShortNameResolver(corpus),
    identifierRule: parts.identifierRule ?? DEFAULT_RANKING.identifiers,
    ...(parts.variables ? { variables: parts.variables } : {}),
    dispose: parts.dispose ?? (() => {}),
  };
}

export interface LoadSearchEngineOptions {
  /**
   * Semantic scorer: `best` (default: the default ranking's, `DEFAULT_RANKING.semantic`: the static encoder, or when
   * it cannot be had NN-SSC when its checkpoint for this corpus and encoder exists, else USE-lite cosine), `nnssc`,
   * `use-lite`, `static` (the corpus-trained static encoder, `lib/encode/static.ts`; trained once on first use),
   * `none` (BM25 alone), or a ready CorpusScorer (its owner disposes it).
   */
  semantic?: 'best' | 'nnssc' | 'use-lite' | 'static' | 'none' | CorpusScorer;
  /** Folder of the static encoder's checkpoint (`semantic: 'static'`). Default `checkpoints/static/<benchmark>`. */
  staticDir?: string;
  /**
   * The lexical scorer: `bm25` (the paper's), `bm25+qe` (BM25 plus the domain vocabulary's expansion at weight 0.3,
   * `expand.ts`), `bm25-stop` (the strong short baseline: three fields, stop words, plural stemming, settings chosen on
   * the style benchmark's dev half, `lib/retrieve/bm25-stop.ts`), true (the default ranking's, `DEFAULT_RANKING.lexical`),
   * or false (the semantic scorer alone). Default true.
   */
  lexical?: boolean | 'bm25' | 'bm25+qe' | 'bm25-stop';
  /**
   * How the two are fused: `analytic` α (Eq. 7), `grid` α, `rrf` (k = 60, no weight), or `adaptive` (α per query,
   * `lib/search/adaptive-fusion.ts`, starting from the analytic α). Default `DEFAULT_RANKING.fusion`.
   */
  fusion?: AlphaMethod | 'rrf' | 'adaptive';
  /** The named-identifier rule (`identifiers.ts`). Default `DEFAULT_RANKING.identifiers`. */
  identifiers?: IdentifierRule;
  /**
   * Dataset ids kept out of the adaptive model's corpus-made training queries, beyond the ones always kept out: the
   * labels of the title benchmark's test split and of the style benchmark's test half (`styleTestLabelIds`). Default none.
   */
  adaptiveExclude?: ReadonlySet<string>;
  /** The adaptive model's start α (a number, or `analytic`) and L2 pull. Default `DEFAULT_RANKING.adaptive`. */
  adaptive?: { startAlpha?: number | 'analytic'; l2?: number };
  /** A fixed α (overrides the stored one; the answers say `given`). Default: the fusion record. */
  alpha?: number;
  /** Sample snapshot: the fusion weight is set on `eo-title-sample`. Default false. */
  sample?: boolean;
  /** Folder of the built benchmark α is set on. Default `benchmarkSettings({ sample }).dir` (data/bench/eo-title[-sample]). */
  benchmarkDir?: string;
  /** Folder of fusion records. Default `checkpoints/fusion`. */
  fusionDir?: string;
  /** NN-SSC checkpoint folder. Default `checkpoints/nnssc/use-lite-<benchmark name>`. */
  nnsscDir?: string;
  /**
   * When no fusion record exists yet: set α on the built benchmark's training split and store it once (true,
   * default), or fuse by RRF and say so (false). A benchmark is never built here: without one, RRF stands in.
   */
  computeAlpha?: boolean;
  /** Encoder to share (the caller disposes it). Default: USE-lite, loaded and owned here. */
  encoder?: SentenceEncoder;
  /**
   * Share the semantic scorer between concurrent searches (a service): `microBatchingScorer` with these options
   * (concurrent queries embedded and scored in one call) over a `microBatchingEncoder` (its LRU of query
   * embeddings, `cacheEntries`). Its `concurrency` defaults to 4 when the graphs run on the onnx worker threads
   * (`onnxThread`; bench/serve-load.cjs --concurrency: 4 ahead of 2 and 3 at 16 connections, within this VM's noise),
   * else 1. Default false: each query embeds and scores alone.
   */
  queryBatching?: MicroBatchOptions | false;
  /**
   * With `queryBatching`: embed the queries on a worker thread (`workerEncoder`), so the event loop keeps parsing,
   * BM25-scoring and fusing on the other core. Default true. Without a shared `encoder` the worker holds the only
   * copy of the model; with one, the worker rebuilds it from its `spec` (a second copy; skipped without a spec).
   * false embeds on the event loop. Default: false for a USE-lite encoder on the onnx runtime whose graph runs on the
   * onnx worker thread (`onnxThread: 'worker'`, `encoderRunsOffEventLoop`), true for every other encoder (tfjs
   * computes in JavaScript/wasm; onnxruntime-node runs a graph synchronously on its calling thread).
   */
  queryEncoderWorker?: boolean;
  /**
   * Where the onnx graphs this engine opens run (`OnnxThread`): the cosine MatMul, NN-SSC's MLP and, for a USE-lite
   * encoder on the onnx runtime loaded here, its graph. `worker`: one worker thread of the process runs them all, so
   * a server's event loop keeps parsing, scoring BM25 and fusing on the other core (onnxruntime-node's `run` blocks
   * the thread that calls it). `caller`: on the calling thread. Default: `worker` with `queryBatching` (a service),
   * `caller` without. Same numbers either way.
   */
  onnxThread?: OnnxThread;
  /**
   * Kernel of the cosine scorer (`denseScorer`'s `kernel`). Default: `auto` (onnxruntime MatMul per micro-batch,
   * else blocked JS) with `queryBatching` (a service), `exact` (per-query, the notebooks' summation order) without.
   */
  cosineKernel?: 'exact' | 'auto' | 'onnx' | 'js';
  /**
   * The static encoder's query-time pseudo-relevance feedback (`DensePrf`), where the semantic half is the static
   * encoder. Default: with a lexical half `DEFAULT_RANKING.staticPrf` (seeded by the lexical half's first datasets),
   * without one `DEFAULT_STATIC_PRF` (its own first 3); null scores one cosine pass. Seeds `lexical` need a lexical half.
   */
  staticPrf?: DensePrf | null;
  /** NN-SSC scoring threads. Default 1 (one query at a time). */
  threads?: number;
  /**
   * Two-stage NN-SSC: the MLP scores only the union of the top `topM` datasets of BM25 and of the cosine of the same
   * encoder (the query is embedded once); every other dataset gets the lowest candidate logit, so after min-max
   * fusion it adds nothing. Its label says `two-stage, M=…` and it has its own fusion records (its own α). Default
   * `false`: exact full-corpus scoring, what every published run file and table uses. Exact NN-SSC runs the MLP on
   * every dataset, two-stage on at most 2·M rows; `bench/hybrid-two-stage.cjs` measures the hybrid's
   * quality exact vs two-stage with paired CIs, `bench/serve-load.cjs --two-stage M` the service's cost.
   * Default `DEFAULT_RANKING.nnsscTwoStage`: the CLI, the service and `eo eval --system best` rank alike.
   */
  nnsscTwoStage?: { topM: number } | false;
  /**
   * The encoder to load when none is shared (`encoder`): main thread, or the worker of a service. Default
   * `chosenEncoderSpec()`: $EO_ENCODER, else USE-lite on tfjs. Any `EncoderSpec` of `createEncoder` fits (e.g. USE-lite on
   * another runtime); the corpus embeddings and the NN-SSC checkpoint are checked against its id.
   */
  encoderSpec?: EncoderSpec;
  /**
   * The GCMD science keywords CSV the router reads (`gcmdKeywordsFile(dataDir)`: `--data DIR` names it). Default:
   * the one of the default data folder ($EO_DATA_DIR, else ../shared/data/eo).
   */
  gcmdFile?: string;
  /** Progress and decision lines (embedding the corpus the first time, α computed and stored). Default: none. */
  log?: (line: string) => void;
}

function onnxThreadOf(opts: LoadSearchEngineOptions): OnnxThread {
  return opts.onnxThread ?? (opts.queryBatching ? 'worker' : 'caller');
}

/**
 * Load the engine every query path uses, once: BM25 (cached index), the semantic scorer over its cached corpus
 * embeddings, and the fusion weight from its stored record (`fusionAlpha`). Never builds a benchmark.
 */
export async function loadSearchEngine(corpus: Corpus, opts: LoadSearchEngineOptions = {}): Promise<SearchEngine> {
  const log = opts.log ?? (() => {});
  // read first: a missing or invalid keywords file fails before any scorer loads
  const variables = opts.gcmdFile ? loadVariableIndex({ gcmdFile: opts.gcmdFile }) : undefined;
  const settings = benchmarkSettings({ sample: !!opts.sample });
  // the benchmark on disk, read once (never built here): α is set on its training split, and it lets the NN-SSC
  // loader check what the checkpoint was trained on
  const onDisk = readBenchmarkOnDisk(corpus, opts.benchmarkDir ?? settings.dir);
  const lexical = lexicalScorer(corpus, opts);
  const disposers: (() => void)[] = [];
  let { semantic, owned, note: semanticNote } = await semanticScorer(corpus, opts, lexical, settings.name, onDisk, log, disposers);
  // with the graphs on the onnx workers, batches in flight overlap one batch's event-loop work with others' inference
  if (semantic && opts.queryBatching) semantic = microBatchingScorer(semantic, { concurrency: onnxThreadOf(opts) === 'worker' ? 4 : 1, ...opts.queryBatching });
  if (owned) disposers.push(() => owned!.dispose());
  const dispose = () => disposers.forEach((d) => d());
  const identifierRule = opts.identifiers ?? DEFAULT_RANKING.identifiers;
  if (!semantic || !lexical) {
    if (!semantic && !lexical) throw new EoError('INVALID_ARGUMENT', 'loadSearchEngine: semantic "none" needs BM25 (lexical: true)');
    return createSearchEngine(corpus, { lexical, semantic, variables, dispose, identifierRule });
  }
  try {
    const { spec, source, recordFile, adaptive } = await resolveFusion(corpus, lexical, semantic, opts, onDisk, log);
    return createSearchEngine(corpus, { lexical, semantic, fusion: spec, source: source + semanticNote, recordFile, adaptive, variables, dispose, identifierRule });
  } catch (e) {
    dispose();
    throw e;
  }
}

/** The lexical scorer `opts.lexical` asks for (default `DEFAULT_RANKING.lexical`), or null for none. */
function lexicalScorer(corpus: Corpus, opts: LoadSearchEngineOptions): CorpusScorer | null {
  const lexicalKind = opts.lexical === false ? null : opts.lexical === true || opts.lexical === undefined ? DEFAULT_RANKING.lexical : opts.lexical;
  // a service scores each query's BM25 twice (lexical part, two-stage first stage): the second is answered from memory
  const recent = opts.queryBatching ? 64 : 0;
  return lexicalKind === null ? null
    : lexicalKind === 'bm25+qe' ? expandedBm25Scorer(loadOrBuildBm25(corpus), loadQueryVocabulary(corpus), DEFAULT_EXPANSION_WEIGHT, { recent, id: 'bm25', label: 'BM25 + vocabulary expansion' })
    : lexicalKind === 'bm25-stop' ? bm25StopScorer(buildBm25Stop(corpus))
    : bm25Scorer(loadOrBuildBm25(corpus), 'bm25', 'BM25', { recent });
}

/**
 * The semantic scorer `opts.semantic` asks for (default 'best': `DEFAULT_RANKING.semantic`, the static encoder, else
 * NN-SSC when its checkpoint loads, else cosine) over the cached corpus embeddings, the encoder it loaded (`owned`,
 * null when shared or none) and, for 'best', why the static encoder or NN-SSC was not used (`note`). What it starts
 * is disposed through `disposers` (on its own failure: at once).
 */
async function semanticScorer(
  corpus: Corpus, opts: LoadSearchEngineOptions, lexical: CorpusScorer | null, benchName: string, onDisk: ReturnType<typeof readBenchmarkOnDisk>,
  log: (line: string) => void, disposers: (() => void)[],
): Promise<{ semantic: CorpusScorer | null; owned: SentenceEncoder | null; note: string }> {
  const choice = opts.semantic ?? 'best';
  if (typeof choice === 'object') return { semantic: choice, owned: null, note: '' };
  if (choice === 'none') return { semantic: null, owned: null, note: '' };
  if (choice === 'static') return { semantic: await staticSemanticScorer(corpus, opts, lexical, onDisk, log, disposers), owned: null, note: '' };
  let staticNote = '';
  if (choice === 'best' && DEFAULT_RANKING.semantic === 'static') {
    try {
      return { semantic: await staticSemanticScorer(corpus, opts, lexical, onDisk, log, disposers), owned: null, note: '' };
    } catch (e) {
      // no benchmark to train it on, or training switched off and no checkpoint: the next best scorer, said in the source
      if (!isEoError(e, 'DATA_NOT_FOUND')) throw e;
      staticNote = `; static encoder not used: ${e.message.split('\n')[0]}`;
    }
  }
  // a service (batching on a worker thread) with no shared encoder holds the encoder only in the worker: one copy
  // of the model in memory; the worker also embeds the corpus when its cache is missing
  const onnxThread = onnxThreadOf(opts);
  const spec = withOnnxThread(opts.encoderSpec ?? opts.encoder?.spec ?? chosenEncoderSpec(), onnxThread);
  const useWorker = opts.queryEncoderWorker ?? !encoderRunsOffEventLoop(spec);
  const workerOnly = !opts.encoder && !!opts.queryBatching && useWorker;
  let owned: SentenceEncoder | null = null;
  const encoder = opts.encoder ?? (owned = workerOnly ? await workerEncoder(spec) : await createEncoder(spec));
  const matrix = await embedCorpusCached({
    encoder, texts: corpus.datasets.map((d) => datasetEncoderText(d)), key: corpus.hash,
    onProgress: (d, t) => log(`embedding corpus ${d}/${t}`),
    rebuild: cacheRebuildCommand('embeddings', corpus.origin) + (spec.kind === 'onnx' ? ` --encoder onnx:${spec.options.folder}` : ''),
  });
  // batched scorer in front (loadSearchEngine); the encoder adds the LRU of query embeddings without a second wait
  let queryEncoder = encoder;
  if (opts.queryBatching) {
    let embedder = encoder;
    if (!workerOnly && useWorker && encoder.spec) {
      const worker = await workerEncoder(encoder.spec, { expectId: encoder.id });
      disposers.push(() => worker.dispose());
      embedder = worker;
    }
    queryEncoder = microBatchingEncoder(embedder, { ...opts.queryBatching, maxWaitMs: 0, maxBatch: (opts.queryBatching.maxBatch ?? 16) + 1, concurrency: 1 });
  }
  // batched queries need a batched kernel; otherwise denseScorer's default ($EO_COSINE_KERNEL, else auto)
  const cosineKernel = opts.cosineKernel ?? (opts.queryBatching ? 'auto' : undefined);
  const cosine = () => {
    const dense = denseScorer(queryEncoder, matrix, { id: 'cosine-base', label: 'Cosine (USE-lite)', noCache: true, kernel: cosineKernel, onnxThread });
    disposers.push(() => dense.dispose());
    return dense;
  };
  if (choice === 'best' || choice === 'nnssc') {
    let twoStage: LoadNnsscOptions['twoStage'];
    const twoStageOpt = opts.nnsscTwoStage === undefined ? DEFAULT_RANKING.nnsscTwoStage : opts.nnsscTwoStage;
    if (twoStageOpt) {
      const { topM } = twoStageOpt;
      if (!(Number.isInteger(topM) && topM >= 1)) throw new EoError('INVALID_ARGUMENT', `nnsscTwoStage.topM must be an integer ≥ 1, got ${topM}`);
      const firstCosine = cosine();
      twoStage = { topM, firstStage: [lexical ?? bm25Scorer(loadOrBuildBm25(corpus), 'bm25', 'BM25'), firstCosine] };
    }
    const nn = loadNnsscScorer(corpus, queryEncoder, matrix, {
      dir: opts.nnsscDir, benchmarkName: benchName, threads: opts.threads, noCache: true, bench: onDisk.bench, twoStage, onnxThread,
      ...(twoStage ? { label: `NN-SSC (two-stage, M=${twoStage.topM})` } : {}),
    });
    if (nn.scorer) {
      disposers.push(() => nn.scorer!.dispose());
      return { semantic: nn.scorer, owned, note: staticNote };
    }
    if (choice === 'nnssc') {
      disposers.forEach((d) => d());
      owned?.dispose();
      throw new EoError(nn.code ?? 'DATA_NOT_FOUND', nn.note);
    }
    return { semantic: cosine(), owned, note: `${staticNote}; NN-SSC not used: ${nn.note}` };
  }
  return { semantic: cosine(), owned, note: '' };
}

/**
 * The corpus-trained static encoder's cosine (`lib/encode/static.ts`): its checkpoint for the built benchmark, trained
 * once on first use (a few minutes) unless computing is switched off; the corpus is embedded on load (seconds).
 */
async function staticSemanticScorer(
  corpus: Corpus, opts: LoadSearchEngineOptions, lexical: CorpusScorer | null, onDisk: ReturnType<typeof readBenchmarkOnDisk>, log: (line: string) => void,
  disposers: (() => void)[],
): Promise<CorpusScorer> {
  const prf = opts.staticPrf !== undefined ? opts.staticPrf : lexical ? DEFAULT_RANKING.staticPrf : DEFAULT_STATIC_PRF;
  // checked before the checkpoint loads (or trains)
  if (prf?.seeds === 'lexical' && !lexical) throw new EoError('CONFIG', `the static encoder's feedback seeded by the lexical ranking (${densePrfText(prf)}) needs a lexical half (BM25), and this engine has none`);
  if (!onDisk.bench) throw new EoError('DATA_NOT_FOUND', `the static encoder is trained on the benchmark's training split, and there is no usable benchmark at ${onDisk.dir} (run "eo bench build${opts.sample ? ' --sample' : ''}")`, { file: onDisk.dir });
  // a search trusts a checkpoint verified before for this corpus, split and settings (notebooks 03/04 verify its pairs)
  const art = await loadOrTrainStaticModel({ corpus, bench: onDisk.bench, dir: opts.staticDir, mode: opts.computeAlpha === false ? 'load' : 'load-or-train', log, trustInputs: true });
  const dense = await staticCosineScorer(art.model, corpus, { kernel: opts.cosineKernel ?? (opts.queryBatching ? 'auto' : undefined), prf, ...(lexical ? { prfLexical: lexical } : {}) });
  disposers.push(() => dense.dispose());
  return dense;
}

/** The built benchmark in `dir`, or why there is none usable (absent, or built on other data). */
function readBenchmarkOnDisk(corpus: Corpus, dir: string): { dir: string; bench?: Benchmark; problem?: 'absent' | string } {
  const file = path.join(dir, 'benchmark.json');
  if (!fs.existsSync(file)) return { dir, problem: 'absent' };
  try {
    return { dir, bench: loadBenchmark(file, corpus) };
  } catch (e) {
    return { dir, problem: (e as Error).message.split('\n')[0] };
  }
}

async function resolveFusion(
  corpus: Corpus, lexical: CorpusScorer, semantic: CorpusScorer, opts: LoadSearchEngineOptions, onDisk: ReturnType<typeof readBenchmarkOnDisk>, log: (l: string) => void,
): Promise<{ spec: FusionSpec; source: string; recordFile?: string; adaptive?: EngineFusion['adaptive'] }> {
  const rrf = (why: string): { spec: FusionSpec; source: string } => ({ spec: { method: 'rrf', k: RRF_K }, source: why });
  if (opts.alpha !== undefined) {
    assertConvexAlpha(opts.alpha, 'loadSearchEngine alpha');
    return { spec: { method: 'convex', alpha: opts.alpha }, source: 'given' };
  }
  const asked = opts.fusion ?? DEFAULT_RANKING.fusion;
  if (asked === 'rrf') return rrf(`RRF k=${RRF_K} (asked for; needs no weight)`);
  const method: AlphaMethod = asked === 'adaptive' ? 'analytic' : asked;
  const rel = path.relative(repoRoot(), onDisk.dir) || onDisk.dir;
  if (onDisk.problem === 'absent') return rrf(`RRF k=${RRF_K}: no benchmark at ${rel} to set α on (run "eo bench build${opts.sample ? ' --sample' : ''}"), so no stored α`);
  if (!onDisk.bench) return rrf(`RRF k=${RRF_K}: the benchmark at ${rel} is not usable (${onDisk.problem})`);
  const train = benchmarkSplit(onDisk.bench, 'train');
  const key = fusionRecordKey(corpus, train, semantic, lexical, method);
  const stored = readFusionRecord(key, semantic.id, opts.fusionDir);
  if (!stored && opts.computeAlpha === false) return rrf(`RRF k=${RRF_K}: no stored ${method} α for ${semantic.label} on ${rel} (computing it was switched off)`);
  if (!stored) log(`no stored fusion weight for ${semantic.label} + ${lexical.label} on ${rel}: setting α (${method}) on its ${train.queries.length} training queries once…`);
  const { record, file: recordFile, notStored } = stored
    ? { record: stored, file: fusionRecordFile(key, semantic.id, opts.fusionDir), notStored: undefined }
    : await fusionAlpha({ corpus, train, semantic, lexical, method, dir: opts.fusionDir, log });
  const fixed = { spec: { method: 'convex', alpha: record.alpha } as FusionSpec, source: describeFusionRecord(record, recordFile, notStored), ...(notStored ? {} : { recordFile }) };
  if (asked !== 'adaptive') return fixed;
  // the adaptive model starts from its start α (tuned, or the analytic one); its corpus-made queries leave every test label out
  const adaptiveOpts = { ...DEFAULT_RANKING.adaptive, ...opts.adaptive };
  const startAlpha = adaptiveOpts.startAlpha === 'analytic' ? record.alpha : adaptiveOpts.startAlpha;
  const test = benchmarkSplit(onDisk.bench, 'test');
  const exclude = adaptiveExcludedIds(corpus, test, opts.adaptiveExclude);
  // with computing switched off, only a stored model is read (else the fixed α stands)
  const a = await adaptiveFusion({
    corpus, train, lexical, semantic, startAlpha, l2: adaptiveOpts.l2, identifierRule: opts.identifiers ?? DEFAULT_RANKING.identifiers,
    training: { excludeDatasetIds: exclude }, dir: opts.fusionDir, readOnly: opts.computeAlpha === false, log,
  });
  if (!a) return { ...fixed, source: `${fixed.source} (no stored adaptive model; computing it was switched off)` };
  const recordFileOf = a.notStored ? {} : { recordFile: a.file };
  // the label shows the start α: the α a query gets when its features say nothing
  return {
    spec: { method: 'convex', alpha: startAlpha }, source: describeAdaptiveRecord(a.record, a.file, a.notStored), ...recordFileOf,
    adaptive: { model: a.record.model, ...recordFileOf },
  };
}
