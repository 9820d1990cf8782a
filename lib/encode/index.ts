export * from './types';
// the vector helpers' home is util/ (bench needs them and sits below encode); encode keeps exporting them by name
export { l2NormalizeInPlace, l2NormalizeRows, dotProduct, stackRows, matrixRow } from '../util/vector';
export * from './tokenizer';
export * from './use-lite';
export * from './use-lite-onnx';
export * from './registry';
export * from './pool';
export * from './cache';
export * from './microbatch';
export * from './trainable-use';
export * from './use-gradients';
export * from './onnx';
export * from './worker-encoder';
export * from './static';
