// One module per notebook (a folder where it grew: llm-rerank/ for 06, agentic/ for 07): what only that notebook needs
// (its generated text, "Try it" knobs, result assembly, claim check). General tables, figures and the site stay in
// lib/report. Shared by lessons: claims.ts (the claim check), text-claims.ts (the check of hand-written cells and
// values given as the paper's), try-it.ts (the Try-it result and its paragraph, 03 and
// 04), verdict-claims.ts (checks of the verdict forms 02-04 show).
export * from './tour';
export * from './router';
export * from './benchmark';
export * from './paper-scale';
export * from './fusion';
export * from './llm-rerank';
export * from './agentic';
export * from './claims';
export * from './text-claims';
export * from './try-it';
export * from './baselines';
export * from './encoder-finetune';
export * from './nnssc';
