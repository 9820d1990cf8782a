// Notebook 05 (fusion, Table 2): its state and loading cells (lesson.ts), Table 2 and its views (table2.ts), the α
// knob (try-it.ts), the seed sections (seed-spread.ts, seed-table.ts), the query styles (styles.ts) and their engines' fusion records fitted beside the notebook (prefit.ts), its generated
// text (verdicts.ts), figures (views.ts) and its claim check (claims.ts).
export * from './lesson';
export * from './table2';
export * from './try-it';
export * from './seed-spread';
export * from './seed-table';
export * from './styles';
export * from './prefit';
export * from './verdicts';
export * from './views';
export * from './claims';
export * from './text-keys';
