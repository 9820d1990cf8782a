export * from './types';
export * from './vector';
export * from './tokenizer';
export * from './use-lite';
export * from './registry';
export * from './pool';
export * from './cache';
