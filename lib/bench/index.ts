export * from './types';
export * from './writers';
export * from './split';
export * from './build';
export * from './export';
export * from './settings';
export * from './stats';
export * from './import';
