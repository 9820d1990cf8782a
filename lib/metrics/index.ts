export * from './types';
export * from './rank';
export * from './metrics';
export * from './paired';
export * from './trec';
export * from './systems';
export * from './graded';
export * from './spread';
