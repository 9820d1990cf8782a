/**
 * Views of notebook 01 (the benchmark) that only it needs: how this snapshot compares in size with NASA-EO-Bench,
 * generated from the counts (the paper's numbers live in lib/bench/paper.ts).
 */
import { NASA_EO_BENCH } from '../bench/paper';

const n = (x: number) => x.toLocaleString('en-US');
const rel = (ours: number, paper: number) => (ours > paper ? 'more than' : ours < paper ? 'fewer than' : 'as many as');

/**
 * Our corpus and query counts beside NASA-EO-Bench's, in words: the corpus may be larger while the benchmark has
 * fewer queries, so the sentence says which is which instead of calling the snapshot "small".
 */
export function benchmarkScaleSentence(ours: { datasets: number; queries: number; test: number }, sample: boolean): string {
  const p = NASA_EO_BENCH;
  const which = sample ? 'The sample snapshot' : 'This snapshot';
  return `${which} has ${n(ours.datasets)} datasets, ${rel(ours.datasets, p.datasets)} NASA-EO-Bench's ${n(p.datasets)}, ` +
    `and ${n(ours.queries)} queries (${n(ours.test)} test), ${rel(ours.queries, p.queries)} its ${n(p.queries)} (${n(p.test)} test)` +
    `${ours.queries < p.queries ? `: it is ${ours.datasets >= p.datasets ? 'not smaller in corpus but ' : ''}smaller in queries` : ''}.`;
}
