export * from './errors';
export * from './util';
export * from './data';
