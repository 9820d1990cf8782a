/** One named tensor of a checkpoint: its shape and its values (row-major float32). */
export interface CheckpointTensor {
  shape: number[];
  data: Float32Array;
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
