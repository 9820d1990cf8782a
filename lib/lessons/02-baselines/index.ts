export * from './baselines';
