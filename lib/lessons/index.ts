// One folder per notebook, named as the notebook (`05-fusion/` for notebooks/05-fusion.ipynb): what only that notebook
// needs (the steps its cells call, its generated text, "Try it" knobs, result assembly, claim check). General tables,
// figures and the site stay in lib/report. Shared by lessons: claims.ts (the claim check), text-claims.ts (the check of hand-written cells and
// values given as the paper's), try-it.ts (the Try-it result and its paragraph, 03 and
// 04), verdict-claims.ts (checks of the verdict forms 02-04 show).
export * from './00-tour';
export * from './01-benchmark';
export * from './02-baselines';
export * from './03-encoder-finetune';
export * from './04-nnssc';
export * from './05-fusion';
export * from './06-llm-rerank';
export * from './07-agentic';
export * from './08-router';
export * from './claims';
export * from './text-claims';
export * from './try-it';
