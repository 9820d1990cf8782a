export * from './types';
export * from './validate';
export * from './page';
export * from './server';
export * from './admission';
