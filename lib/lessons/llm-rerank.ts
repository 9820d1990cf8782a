// Notebook 06 (LLM rerank, Tables 4 and 5): labels and sentences generated from the run's own counts.
import { NASA_EO_BENCH } from '../report/paper';

/** What the notebook's test queries are: their real count, and how it relates to the paper's stratified subset. */
export function rerankQueriesSentence(n: number, paperN: number = NASA_EO_BENCH.rerankSubset): string {
  const relation = n === paperN ? 'the same size as' : n < paperN ? 'fewer than' : 'more than';
  return `The rerank tables below score this run's test subset, **N = ${n}** queries (${relation} the paper's stratified N = ${paperN}).`;
}

/** The footer note of a table whose "paper" columns hold the paper's numbers: they are the paper's, on its own N. */
export function paperColumnsNote(table: string, paperN: number = NASA_EO_BENCH.rerankSubset): string {
  return `paper MAP/MRR: the paper's numbers (arXiv 2607.02387 ${table}, its corpus and its N = ${paperN} queries), not this run's`;
}
