export * from './types';
export * from './backend';
