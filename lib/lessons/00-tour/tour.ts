/**
 * Views of notebook 00 (the tour): one publication's query walked through the two baselines, and the corpus per DAAC.
 * The text after each result is generated from the numbers here, never typed in the notebook; the claim check at the
 * bottom re-derives each sentence from the results file.
 */
import type { Corpus, Publication } from '../../data/types';
import { sortRunEntries } from '../../metrics/rank';
import type { RunEntry } from '../../metrics/types';
import { EoError } from '../../errors';
import { showMarkdown, showTable } from '../../report/display';
import { toDataFrame } from '../../report/frame';
import { rankedDatasetRows } from '../../report/ranked';
import type { TableSource } from '../../report/types';
import { findShown, registerClaimCheck, withShownSentence, type Json } from '../claims';

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

/** How many datasets of a snapshot have no shortName, in words (a scorer can match those only by title and abstract). */
export function shortNameSentence(corpus: Pick<Corpus, 'datasets'>): string {
  const missing = corpus.datasets.filter((d) => !d.shortName).length;
  const n = corpus.datasets.length;
  return `**${missing}** of this snapshot's ${n} datasets (${pct1(n ? missing / n : 0)}%) have no shortName: a scorer can match them only by their title and abstract.`;
}

/**
 * The corpus per DAAC: its table, what it shows, and how many records lack a shortName. Returns the rows it showed
 * and that count (the results file keeps both).
 */
export function showDaacShares(corpus: Pick<Corpus, 'datasets'>, source: TableSource) {
  const rows = datasetsPerDaacRows(corpus);
  showTable(toDataFrame(rows), { title: 'Datasets per DAAC', maxRows: 12, source });
  showMarkdown(daacVerdict(rows));
  showMarkdown(shortNameSentence(corpus));
  return { rows, withoutShortName: corpus.datasets.filter((d) => !d.shortName).length };
}

/** One scorer's top `k` (default 10) for the tour's query, the right answers marked ✓. */
export function showTourRanking(corpus: Corpus, entries: readonly RunEntry[], relevant: ReadonlySet<string>, opts: { title: string; settings: Readonly<Record<string, unknown>>; k?: number }): void {
  showTable(toDataFrame(rankedDatasetRows(corpus, entries, relevant, opts.k ?? 10)), { title: opts.title, digits: 3, source: { settings: opts.settings } });
}

/** One ranking of the tour as the results file keeps it: where its first right answer is, how many are in its top 10, its length. */
export interface TourRankingRecord { label: string; firstRelevantRank: number | null; inTop10: number; ranked: number }

/** What the two rankings show (`tourVerdict`), and each ranking's record for the results file. */
export function showTourVerdict(input: Parameters<typeof tourVerdict>[0]): TourRankingRecord[] {
  showMarkdown(tourVerdict(input));
  return input.rankings.map((r) => ({ label: r.label, firstRelevantRank: firstRelevantRank(r.entries, input.relevant), inTop10: relevantInTop(r.entries, input.relevant, 10), ranked: r.entries.length }));
}

// ---- the claim check of notebook 00 ----

const RANK_RE = /^- \*\*(.+?)\*\* (?:has none of the (\d+) right answers in its top (\d+)|puts the first of the (\d+) right answers at rank (\d+)) \(reciprocal rank ([\d.]+)\) and has (\d+) of them in its top 10\.$/gm;
const WINNER_RE = /On this one query \*\*(.+?)\*\* does better|On this query the two rankings tie/;
const DAAC_RE = /^(\d+) DAACs; the largest, \*\*(.+?)\*\*, holds ([\d.]+)% of the datasets and the top three ([\d.]+)%(?:; (\d+) DAACs? holds? under 1% each)?\./;

const SHORTNAME_RE = /^\*\*(\d+)\*\* of this snapshot's (\d+) datasets \(([\d.]+)%\) have no shortName/;

interface TourResults {
  counts: { daacs: number; datasets: number };
  withoutShortName: number;
  relevant: string[];
  firstRelevantRank: Record<string, number | null>;
  rankings: TourRankingRecord[];
  perDaac: { DAAC: string; datasets: number; share: number }[];
}

const rrOf = (first: number | null) => (first === null ? 0 : 1 / first);
const pct1 = (x: number) => (100 * x).toFixed(1);

/** Problems of notebook 00's generated sentences against its results.json (see lib/lessons/claims.ts). */
export function tourClaimProblems(results: Json): string[] {
  const r = results as unknown as TourResults;
  const out: string[] = [];
  const rankings = Array.isArray(r.rankings) ? r.rankings : [];
  if (rankings.length === 0) out.push('results.json has no rankings');
  // the rankings' record agrees with the older firstRelevantRank field (bm25, cosine in that order)
  const legacy = Object.values(r.firstRelevantRank ?? {});
  if (legacy.length !== rankings.length || legacy.some((v, i) => v !== rankings[i].firstRelevantRank)) out.push(`firstRelevantRank ${JSON.stringify(r.firstRelevantRank)} disagrees with rankings ${JSON.stringify(rankings.map((x) => x.firstRelevantRank))}`);

  // one bullet per ranking: "has none … in its top M" only when none is ranked; the rank, 1/rank and the top-10 count as recorded
  const verdict = findShown(results, /reciprocal rank/, 'on the two rankings');
  out.push(...verdict.problems);
  if (verdict.text) {
    const bullets = [...verdict.text.matchAll(RANK_RE)];
    const n = r.relevant.length;
    for (const rec of rankings) {
      const b = bullets.find((m) => m[1] === rec.label);
      if (!b) { out.push(`no sentence on ${rec.label}`); continue; }
      const saysNone = b[2] !== undefined;
      if (saysNone !== (rec.firstRelevantRank === null)) out.push(`${rec.label}: says ${saysNone ? 'it has none of the right answers' : `its first right answer is at rank ${b[5]}`}; results.json has ${rec.firstRelevantRank === null ? 'none ranked' : `rank ${rec.firstRelevantRank}`}`);
      if (Number(saysNone ? b[2] : b[4]) !== n) out.push(`${rec.label}: says ${saysNone ? b[2] : b[4]} right answers; results.json has ${n}`);
      if (saysNone && Number(b[3]) !== rec.ranked) out.push(`${rec.label}: says none in its top ${b[3]}; it ranks ${rec.ranked}`);
      if (!saysNone && Number(b[5]) !== rec.firstRelevantRank) out.push(`${rec.label}: says rank ${b[5]}; results.json has ${rec.firstRelevantRank}`);
      if (b[6] !== rrOf(rec.firstRelevantRank).toFixed(3)) out.push(`${rec.label}: says reciprocal rank ${b[6]}; 1/${rec.firstRelevantRank} is ${rrOf(rec.firstRelevantRank).toFixed(3)}`);
      if (Number(b[7]) !== rec.inTop10) out.push(`${rec.label}: says ${b[7]} right answers in its top 10; results.json has ${rec.inTop10}`);
    }
    // the winner: higher reciprocal rank, then more right answers in the top 10; a tie only when both are equal
    const w = WINNER_RE.exec(verdict.text);
    if (rankings.length >= 2) {
      const sorted = [...rankings].sort((a, b) => rrOf(b.firstRelevantRank) - rrOf(a.firstRelevantRank) || b.inTop10 - a.inTop10);
      const tie = rrOf(sorted[0].firstRelevantRank) === rrOf(sorted[1].firstRelevantRank) && sorted[0].inTop10 === sorted[1].inTop10;
      if (!w) out.push('names no winner and no tie');
      else if (w[1] === undefined && !tie) out.push(`says the rankings tie; ${sorted[0].label} does better`);
      else if (w[1] !== undefined && tie) out.push(`says ${w[1]} does better; the rankings tie`);
      else if (w[1] !== undefined && w[1] !== sorted[0].label) out.push(`says ${w[1]} does better; ${sorted[0].label} does (reciprocal rank ${rrOf(sorted[0].firstRelevantRank).toFixed(3)})`);
    }
  }

  // the DAAC sentence: the count, the largest DAAC and its share, the top three, the DAACs under 1%
  const daac = findShown(results, DAAC_RE, 'on the DAACs');
  out.push(...daac.problems);
  const rows = Array.isArray(r.perDaac) ? r.perDaac : [];
  if (daac.text) {
    const m = DAAC_RE.exec(daac.text)!;
    if (Number(m[1]) !== rows.length || rows.length !== r.counts.daacs) out.push(`says ${m[1]} DAACs; the table has ${rows.length} (counts.daacs ${r.counts.daacs})`);
    const max = Math.max(...rows.map((x) => x.datasets));
    const named = rows.find((x) => x.DAAC === m[2]);
    if (!named || named.datasets !== max) out.push(`names ${m[2]} the largest DAAC (${named?.datasets ?? 'not in the table'}); the largest holds ${max} datasets`);
    else if (m[3] !== pct1(named.share)) out.push(`says ${m[2]} holds ${m[3]}%; the table has ${pct1(named.share)}%`);
    const top3 = [...rows].sort((a, b) => b.datasets - a.datasets).slice(0, 3).reduce((s, x) => s + x.share, 0);
    if (m[4] !== pct1(top3)) out.push(`says the top three hold ${m[4]}%; the table gives ${pct1(top3)}%`);
    const small = rows.filter((x) => x.share < 0.01).length;
    if (Number(m[5] ?? 0) !== small) out.push(`says ${m[5] ?? 0} DAACs hold under 1%; the table has ${small}`);
  }

  // the records without a shortName: the count and its share of the corpus
  const names = findShown(results, SHORTNAME_RE, 'on the records without a shortName');
  out.push(...names.problems);
  if (names.text) {
    const m = SHORTNAME_RE.exec(names.text)!;
    if (Number(m[1]) !== r.withoutShortName || Number(m[2]) !== r.counts.datasets) out.push(`says ${m[1]} of ${m[2]} datasets have no shortName; results.json has ${r.withoutShortName} of ${r.counts.datasets}`);
    else if (m[3] !== pct1(r.withoutShortName / r.counts.datasets)) out.push(`says ${m[3]}% have no shortName; ${r.withoutShortName} of ${r.counts.datasets} is ${pct1(r.withoutShortName / r.counts.datasets)}%`);
  }
  return out;
}

/** Copies of 00's results with one claim made false: a stated rank, the winner, the largest DAAC, the shortName count, a recorded rank. */
export function falsifyTourClaims(results: Json): Json[] {
  const r = results as unknown as TourResults;
  const out: (Json | null)[] = [];
  // the first stated rank moved by one
  out.push(withShownSentence(results, /at rank \d+/, (s) => s.replace(/at rank (\d+)/, (_, k) => `at rank ${Number(k) + 1}`)));
  // the winner named swapped for the other ranking's label
  const labels = (r.rankings ?? []).map((x) => x.label);
  out.push(withShownSentence(results, WINNER_RE, (s) => s.replace(WINNER_RE, (all, w) => (w === undefined ? `On this one query **${labels[0]}** does better` : all.replace(`**${w}**`, `**${labels.find((l) => l !== w)}**`)))));
  // the largest DAAC swapped for the second largest
  const rows = r.perDaac ?? [];
  if (rows.length >= 2 && rows[1].datasets < rows[0].datasets) out.push(withShownSentence(results, DAAC_RE, (s) => s.replace(`**${rows[0].DAAC}**`, `**${rows[1].DAAC}**`)));
  // one more record without a shortName than the sentence says
  if (typeof r.withoutShortName === 'number') out.push({ ...results, withoutShortName: r.withoutShortName + 1 });
  // the table says the second ranking has no right answer ranked at all (or one at rank 1 when it has none)
  if (r.rankings?.length >= 2) {
    const last = r.rankings.length - 1;
    const flip = (x: TourRankingRecord): TourRankingRecord => ({ ...x, firstRelevantRank: x.firstRelevantRank === null ? 1 : null });
    const rankings = r.rankings.map((x, i) => (i === last ? flip(x) : x));
    // the older field changes with it, so that only the sentence disagrees
    const legacy = Object.fromEntries(Object.keys(r.firstRelevantRank ?? {}).map((k, i) => [k, rankings[i]?.firstRelevantRank ?? null]));
    out.push({ ...results, rankings, firstRelevantRank: legacy });
  }
  return out.filter((x): x is Json => x !== null);
}

registerClaimCheck('00', {
  covers: '00: first right answer of each ranking, the winner, the DAAC shares, records without a shortName',
  check: tourClaimProblems,
  falsify: falsifyTourClaims,
});
