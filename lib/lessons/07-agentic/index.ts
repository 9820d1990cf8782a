// Notebook 07 (agentic rerank, Table 6, cost-aware tool routing): views, generated text, cells, claim check.
export * from './views';
export * from './text';
export * from './cells';
export * from './claims';
