/** One named tensor of a checkpoint: its shape and its values (row-major float32). */
export interface CheckpointTensor {
  shape: number[];
  data: Float32Array;
}

/**
 * What a model trained on a benchmark's training split was trained on: the hash of that split (its queries with
 * their text and labels, and the data and settings they came from) and, for messages, the settings themselves.
 * `benchmarkTrainingData` (lib/bench) computes it; checkpoints record it; the load-or-train helpers (lib/train)
 * refuse a checkpoint whose hash differs from the current one.
 */
export interface TrainingData {
  /** `benchmarkTrainingData`'s hash over everything below and the training queries with their labels. */
  hash: string;
  /** `Corpus.dataHash` of the datasets, publications and links the benchmark was built from. */
  dataHash: string;
  benchmark: string;
  writer: string;
  seed: number;
  testFraction: number;
  relations: string[] | null;
  /** Number of training-split queries. */
  queries: number;
}

/** What `saveCheckpoint` writes. */
export interface CheckpointInput {
  /** What was trained, e.g. `nnssc` or `finetune-use-lite`; checked on load. */
  kind: string;
  /** The training configuration (hyper-parameters, encoder id, …). */
  config: Record<string, unknown>;
  seed: number;
  /** TensorFlow.js backend (or `js`) that trained it; bit-for-bit reproducibility holds only on the same one. */
  backend: string;
  /** Hash of the training data (corpus + split + embeddings) it was trained on; checked on load. */
  dataHash: string;
  /**
   * The benchmark training split it was trained on (`benchmarkTrainingData`): its hash and settings. Checked by the
   * load-or-train helpers; absent in checkpoints written before it was recorded (treated as stale).
   */
  trainingData?: TrainingData;
  /** Training / validation metrics, learning curve, wall time… */
  metrics?: Record<string, unknown>;
  tensors: Record<string, CheckpointTensor>;
}

/** What `loadCheckpoint` returns. */
export interface Checkpoint extends CheckpointInput {
  /** ISO time the checkpoint was written. */
  created: string;
  /** Path of the `checkpoint.json` it was read from. */
  file: string;
}

/** Per-tensor entry of `checkpoint.json`. */
export interface CheckpointTensorEntry {
  name: string;
  shape: number[];
  /** Byte offset into weights.bin. */
  offset: number;
  /** Number of float32 values. */
  length: number;
}

/** The JSON manifest beside `weights.bin`: the checkpoint's fields, with tensor entries instead of tensors. */
export interface CheckpointManifest extends Omit<CheckpointInput, 'tensors'> {
  format: 'eo-checkpoint';
  version: 1;
  created: string;
  weights: { file: string; bytes: number; sha256: string; dtype: 'float32'; endianness: 'little' };
  tensors: CheckpointTensorEntry[];
}
