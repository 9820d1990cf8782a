export * from './benchmark';
export * from './paper-scale';
