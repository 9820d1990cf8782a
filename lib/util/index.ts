export * from './types';
export * from './fs';
export * from './hash';
export * from './random';
export * from './paths';
export * from './prompt';
export * from './html';
export * from './lru';
