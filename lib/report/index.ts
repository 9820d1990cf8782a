export * from './types';
export * from './figures';
export * from './export';
export * from './display';
export * from './frame';
export * from './ranked';
export * from './table2';
export * from './heatmap';
