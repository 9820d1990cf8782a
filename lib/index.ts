export * from './errors';
export * from './util';
export * from './data';
export * from './metrics';
export * from './report';
