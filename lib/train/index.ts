export * from './types';
export * from './negatives';
export * from './checkpoint';
export * from './mnrl';
export * from './finetune';
export * from './nnssc';
