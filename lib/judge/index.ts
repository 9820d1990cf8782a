export * from './types';
export * from './judge';
export * from './compare';
export * from './plan';
