// One module per notebook (a folder where it grew: llm-rerank/ for 06, agentic/ for 07): what only that notebook needs (its generated text, "Try it" knobs, result assembly, claim check).
// General tables, figures and the site stay in lib/report.
export * from './tour';
export * from './router';
export * from './benchmark';
export * from './fusion';
export * from './llm-rerank';
export * from './agentic';
export * from './claims';
