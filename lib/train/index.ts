export * from './negatives';
export * from './mnrl';
export * from './finetune';
export * from './nnssc';
export * from './artefacts';
