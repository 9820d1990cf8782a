export * from './topk';
export * from './dense';
export * from './hnsw';
export * from './bm25';
export * from './scorers';
export * from './nnssc';
export * from './nnssc-onnx';
export * from './microbatch';
