export * from './types';
export * from './validate';
export * from './corpus';
export * from './snapshot';
export * from './text';
export * from './cmr';
export * from './eobench';
export * from './kg';
