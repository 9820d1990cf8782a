export * from './negatives';
export * from './mnrl';
export * from './finetune';
export * from './nnssc';
export * from './defaults';
export * from './artefacts';
export * from './try-it';
export * from './corpus-pairs';
