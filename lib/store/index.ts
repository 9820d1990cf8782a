export * from './types';
export * from './checkpoint';
