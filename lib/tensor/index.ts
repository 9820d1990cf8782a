export * from './types';
export * from './backend';
export * from './onnx';
export * from './onnx-session';
export * from './wasm-matmul';
export * from './webgpu';
