// Notebook 06 (LLM rerank, Tables 4 and 5) and what notebook 07 shares with it: views, generated text, cells, claim check.
export * from './views';
export * from './text';
export * from './cells';
export * from './claims';
