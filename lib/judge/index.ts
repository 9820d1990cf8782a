export * from './types';
export * from './judge';
