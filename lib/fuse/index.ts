export * from './minmax';
export * from './alpha';
export * from './r2';
export * from './rrf';
export * from './scorer';
export * from './grid';
export * from './adaptive';
