export * from './minmax';
export * from './alpha';
