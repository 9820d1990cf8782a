export * from './minmax';
