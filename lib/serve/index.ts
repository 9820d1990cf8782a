export * from './types';
export * from './validate';
export * from './pipeline';
export * from './page';
export * from './server';
