export * from './types';
export * from './key';
export * from './store';
export * from './redact';
export * from './models';
export * from './openai';
export * from './anthropic';
export * from './client';
