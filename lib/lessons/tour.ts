/**
 * Views of notebook 00 (the tour): one publication's query walked through the two baselines, and the corpus per DAAC.
 * The text after each result is generated from the numbers here, never typed in the notebook.
 */
import type { Corpus, Publication } from '../data/types';
import { sortRunEntries } from '../metrics/rank';
import type { RunEntry } from '../metrics/types';
import { EoError } from '../errors';

/** Datasets per DAAC as `{ DAAC, datasets, share }` rows, largest first (ties by name). */
export function datasetsPerDaacRows(corpus: Pick<Corpus, 'datasets'>): { DAAC: string; datasets: number; share: number }[] {
  const per = new Map<string, number>();
  for (const d of corpus.datasets) per.set(d.daac, (per.get(d.daac) ?? 0) + 1);
  const n = corpus.datasets.length;
  return [...per.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([DAAC, datasets]) => ({ DAAC, datasets, share: n ? datasets / n : 0 }));
}

/** The corpus per DAAC in words: how many DAACs, the largest and its share, and how many hold under 1% each. */
export function daacVerdict(rows: readonly { DAAC: string; datasets: number; share: number }[]): string {
  if (rows.length === 0) return 'The corpus is empty.';
  const small = rows.filter((r) => r.share < 0.01).length;
  const top3 = rows.slice(0, 3).reduce((s, r) => s + r.share, 0);
  return `${rows.length} DAACs; the largest, **${rows[0].DAAC}**, holds ${(100 * rows[0].share).toFixed(1)}% of the datasets and the top three ${(100 * top3).toFixed(1)}%` +
    `${small ? `; ${small} DAAC${small > 1 ? 's hold' : ' holds'} under 1% each` : ''}. Every dataset of every DAAC is a candidate for every query, so the large DAACs supply most of the distractors.`;
}

/**
 * The tour's example publication: the `pick`-th (0-based) publication, in id order, with at least `minLinked` linked
 * datasets (default 2, so that ranks of several right answers can be seen). Throws when there are not that many.
 */
export function tourPublication(corpus: Pick<Corpus, 'publications'>, linked: ReadonlyMap<string, readonly string[]>, pick = 0, minLinked = 2): Publication {
  const eligible = corpus.publications.filter((p) => (linked.get(p.id)?.length ?? 0) >= minLinked).sort((a, b) => a.id.localeCompare(b.id));
  if (!Number.isInteger(pick) || pick < 0 || pick >= eligible.length)
    throw new EoError('INVALID_ARGUMENT', `tourPublication: pick must be an integer in [0, ${eligible.length - 1}] (publications with ≥ ${minLinked} linked datasets), got ${pick}`, { pick });
  return eligible[pick];
}

/** 1-based rank of the first relevant dataset in a ranked list (ties ordered as trec_eval does), or null when none is ranked. */
export function firstRelevantRank(entries: readonly RunEntry[], relevant: ReadonlySet<string>): number | null {
  const i = sortRunEntries(entries, entries.length).findIndex((e) => relevant.has(e.docId));
  return i < 0 ? null : i + 1;
}

/** How many relevant datasets are in the top k of a ranked list. */
export function relevantInTop(entries: readonly RunEntry[], relevant: ReadonlySet<string>, k: number): number {
  return sortRunEntries(entries, k).filter((e) => relevant.has(e.docId)).length;
}

/**
 * What the tour's two rankings show, in words: where each scorer puts the first right answer, how many right answers
 * each has in its top 10, and which one does better on this query (the reciprocal rank, 1/rank, is this query's MRR).
 */
export function tourVerdict(input: { query: string; relevant: ReadonlySet<string>; rankings: readonly { label: string; entries: readonly RunEntry[] }[]; sample: boolean }): string {
  const n = input.relevant.size;
  const rows = input.rankings.map((r) => ({ label: r.label, first: firstRelevantRank(r.entries, input.relevant), top10: relevantInTop(r.entries, input.relevant, 10) }));
  const rr = (f: number | null) => (f === null ? 0 : 1 / f);
  const out = rows.map((r, i) => `- **${r.label}** ${r.first === null ? `has none of the ${n} right answers in its top ${input.rankings[i].entries.length}` : `puts the first of the ${n} right answers at rank ${r.first}`} ` +
    `(reciprocal rank ${rr(r.first).toFixed(3)}) and has ${r.top10} of them in its top 10.`);
  const sorted = [...rows].sort((a, b) => rr(b.first) - rr(a.first) || b.top10 - a.top10);
  if (sorted.length >= 2) {
    const [a, b] = sorted;
    out.push('', rr(a.first) === rr(b.first) && a.top10 === b.top10
      ? `On this query the two rankings tie.`
      : `On this one query **${a.label}** does better. One query proves nothing: notebook 02 measures both over every test query.`);
  }
  out.push('', input.sample ? '*Sample snapshot (`EO_SAMPLE=1`): 200 datasets, so a right answer is easier to reach than among 10,073.*' : '*Full snapshot.*');
  return out.join('\n');
}
