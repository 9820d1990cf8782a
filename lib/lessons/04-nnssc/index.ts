export * from './nnssc';
