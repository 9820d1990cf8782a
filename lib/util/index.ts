export * from './fs';
export * from './hash';
export * from './random';
