/**
 * Claim checks of the verdict forms of lib/report/lesson.ts as notebooks 02–04 show them (`metricsVerdict`,
 * `pairedVerdict`, `paperComparisonSentence`, `sampleNote`, `trainingVerdict`, the Try-it default sentence) and of
 * the training-split size beside NASA-EO-Bench's (`trainingScaleClause`): each re-derives from the tables of a
 * results.json what a sentence claims and returns a problem per disagreement. The falsifiers make one claim false.
 */
import { NASA_EO_BENCH } from '../bench/paper';
import { significantSide } from '../metrics/significance';
import { METRIC_NAMES, type MetricName } from '../metrics/types';
import { f3, signed } from '../report/numbers';
import { PAIRED_VERDICT_SIGNIFICANT } from '../report/lesson';
import { paperTable2Value } from '../report/paper';
import { comparisonsIn, escapeRegExp, shownSentences, shownWith, type Json } from './claims';

type Row = Record<string, unknown>;
const NUM = String.raw`[+−-]?\d+(?:\.\d+)?`;
const numberOf = (v: unknown): number => (typeof v === 'number' ? v : NaN);
const intOf = (s: string): number => Number(s.replace(/,/g, ''));

/** Replace, in the first shown sentence where `find` matches, that match by `to`; null when nothing changes. */
export function replacedInShown(results: Json, find: RegExp, to: (match: RegExpExecArray) => string): Json | null {
  const texts = shownSentences(results);
  for (let i = 0; i < texts.length; i++) {
    const m = find.exec(texts[i]);
    if (!m) continue;
    const changed = texts[i].slice(0, m.index) + to(m) + texts[i].slice(m.index + m[0].length);
    if (changed !== texts[i]) return { ...results, shownText: texts.map((t, j) => (j === i ? changed : t)) };
  }
  return null;
}

const METRIC_LINE = new RegExp(String.raw`^- \*\*(R@\d+|MAP|MRR)\*\*: (.+?) (wins|tie) with (${NUM}), (${NUM}) ahead of (.+?) \((${NUM})\)`, 'gm');

/**
 * `metricsVerdict`'s lines in `text` against `rows`: the named winner(s) of each metric are the rows with the
 * highest value (ties within 1e-12), quoted to three decimals, and the runner-up is the next row.
 */
export function metricsVerdictProblems(text: string, rows: readonly Row[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(METRIC_LINE)) {
    const metric = m[1];
    const named = [...m[2].matchAll(/\*\*(.+?)\*\*/g)].map((x) => x[1]).sort();
    const sorted = [...rows].sort((a, b) => numberOf(b[metric]) - numberOf(a[metric]));
    const best = numberOf(sorted[0]?.[metric]);
    const top = sorted.filter((r) => Math.abs(numberOf(r[metric]) - best) <= 1e-12).map((r) => String(r.system)).sort();
    if (named.join('\u0000') !== top.join('\u0000')) out.push(`names ${named.join(' and ')} the winner of ${metric}, the table says ${top.join(' and ')}: "${m[0]}"`);
    if (m[4] !== f3(best)) out.push(`quotes ${m[4]} as the best ${metric}, the table has ${f3(best)}: "${m[0]}"`);
    const next = sorted[top.length];
    if (next && (m[6] !== String(next.system) || m[7] !== f3(numberOf(next[metric])))) out.push(`names ${m[6]} (${m[7]}) the runner-up on ${metric}, the table says ${String(next.system)} (${f3(numberOf(next[metric]))}): "${m[0]}"`);
  }
  return out;
}

/** A copy with the named winner of `metric` in the first metrics-verdict line swapped for another row's label. */
export function swapMetricWinner(results: Json, rows: readonly Row[], metric: MetricName = 'MAP'): Json | null {
  const line = new RegExp(String.raw`^- \*\*${escapeRegExp(metric)}\*\*: \*\*(.+?)\*\* wins`, 'm');
  return replacedInShown(results, line, (m) => {
    const other = rows.map((r) => String(r.system)).find((s) => s !== m[1]);
    return other === undefined ? m[0] : m[0].replace(`**${m[1]}**`, `**${other}**`);
  });
}

const PAPER_SENTENCE = new RegExp(String.raw`(?:^|\n)(?:- )?([^\n]+?),? MAP: ours (${NUM}) vs the paper's (${NUM}) \((${NUM})\)`, 'g');

/** "X MAP: ours a vs the paper's b (d)": a is X's MAP in `rows`, b the paper's Table 2 value (lib/bench/paper.ts), d = a − b. */
export function paperSentenceProblems(text: string, rows: readonly Row[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PAPER_SENTENCE)) {
    const label = m[1].trim();
    const row = rows.find((r) => r.system === label);
    const paper = paperTable2Value(label, 'MAP');
    if (!row) { out.push(`compares ${label} with the paper but the table has no such row`); continue; }
    if (paper === null) { out.push(`quotes a paper value for ${label}, which the paper does not report`); continue; }
    const ours = numberOf(row.MAP);
    if (m[2] !== f3(ours)) out.push(`quotes ours ${m[2]} for ${label} MAP, the table has ${f3(ours)}`);
    if (m[3] !== f3(paper)) out.push(`quotes the paper's ${m[3]} for ${label} MAP, lib/bench/paper.ts has ${f3(paper)}`);
    if (m[4] !== signed(ours - paper)) out.push(`quotes the difference ${m[4]} for ${label} MAP, it is ${signed(ours - paper)}`);
  }
  return out;
}

/** A copy with the paper's value in the first "ours a vs the paper's b" sentence changed. */
export function changePaperValue(results: Json): Json | null {
  return replacedInShown(results, new RegExp(String.raw`vs the paper's (${NUM})`), (m) => `vs the paper's ${f3(Number(m[1]) + 0.1)}`);
}

// the closing line of pairedVerdict: the count of metrics significant by the one rule, or none
const PAIRED_CLOSING = new RegExp(`${escapeRegExp(PAIRED_VERDICT_SIGNIFICANT)} on (\\d+) of (\\d+) metrics|No metric's difference is significant`);
const PAIRED_HEAD = /\*\*(.+?) − (.+?)\*\* over (\d+) paired queries/;
const PAIRED_LINE = new RegExp(String.raw`^- \*\*(R@\d+|MAP|MRR)\*\* (${NUM}) \[[^\]]*\]: (?:(.+?) is ahead|no difference)`, 'gm');

/**
 * `pairedVerdict`s in the shown text against `paired` (results.json's `paired`: typed comparisons keyed `A vs B`): each
 * line's mean difference and who is ahead, and the closing count of metrics significant by the one rule (`significantSide`).
 */
export function pairedVerdictProblems(results: Json, paired: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const text of shownSentences(results)) {
    const head = PAIRED_HEAD.exec(text);
    if (!head) continue;
    const [a, b] = [head[1], head[2]];
    // results.json keys may drop the parentheses of a label ("BM25 per-field vs BM25")
    const bare = (k: string) => k.replace(/[()]/g, '');
    const key = Object.keys(paired).find((k) => bare(k) === bare(`${a} vs ${b}`));
    const rows = comparisonsIn(key === undefined ? undefined : paired[key]);
    if (rows.length === 0) { out.push(`shows ${a} − ${b} but results.json has no paired table "${a} vs ${b}"`); continue; }
    if (Number(head[3]) !== rows[0].n) out.push(`says ${head[3]} paired queries for ${a} − ${b}, the table has n = ${String(rows[0].n)}`);
    for (const m of text.slice(head.index).matchAll(PAIRED_LINE)) {
      const row = rows.find((r) => r.metric === m[1]);
      if (!row) { out.push(`${a} − ${b}: no paired row for ${m[1]}`); continue; }
      const d = row.meanDiff;
      if (m[2] !== signed(d)) out.push(`${a} − ${b} ${m[1]}: quotes ${m[2]}, the table has ${signed(d)}`);
      const ahead = Math.abs(d) <= 1e-12 ? null : d > 0 ? a : b;
      if ((m[3] ?? null) !== ahead) out.push(`${a} − ${b} ${m[1]}: says ${m[3] ? `${m[3]} is ahead` : 'no difference'}, the table says ${ahead ? `${ahead} is ahead` : 'no difference'}`);
    }
    const sure = rows.filter((r) => significantSide(r) !== 0).length;
    const closing = PAIRED_CLOSING.exec(text.slice(head.index));
    const said = closing === null ? null : closing[1] === undefined ? 0 : Number(closing[1]);
    if (said !== sure) out.push(`${a} − ${b}: says the difference is significant on ${said ?? '?'} metrics, the comparisons have ${sure}`);
  }
  return out;
}

/** "(N datasets, Q test queries": Q is results.json's `queries`; "sample snapshot" exactly when `sample`. */
export function sampleNoteProblems(results: Json): string[] {
  const out: string[] = [];
  for (const text of shownSentences(results)) {
    const m = /These numbers come from the \*\*(sample|full) snapshot\*\* \(([\d,]+) datasets, ([\d,]+) test queries/.exec(text);
    if (!m) continue;
    if ((m[1] === 'sample') !== (results.sample === true)) out.push(`says the ${m[1]} snapshot, results.json says sample = ${String(results.sample)}`);
    if (intOf(m[3]) !== results.queries) out.push(`says ${m[3]} test queries, results.json has ${String(results.queries)}`);
  }
  return out;
}

const SCALE = /training split has ([\d,]+) queries, (?:([\d.]+)× (fewer|more) than|as many as) NASA-EO-Bench's test split alone \(([\d,]+) queries\)/g;

/** `trainingScaleClause`: ours is results.json's `trainQueries`, NASA-EO-Bench's test split its 4,234 (lib/bench/paper.ts, from the paper notes), the ratio and its direction follow. */
export function trainingScaleProblems(results: Json): string[] {
  const out: string[] = [];
  const ours = numberOf(results.trainQueries);
  let seen = 0;
  for (const text of shownSentences(results)) {
    for (const m of text.matchAll(SCALE)) {
      seen++;
      const paper = intOf(m[4]);
      if (intOf(m[1]) !== ours) out.push(`says the training split has ${m[1]} queries, results.json has trainQueries = ${String(results.trainQueries)}`);
      if (paper !== NASA_EO_BENCH.test) out.push(`quotes NASA-EO-Bench's test split as ${m[4]}, lib/bench/paper.ts has ${NASA_EO_BENCH.test}`);
      const dir = ours < paper ? 'fewer' : ours > paper ? 'more' : undefined;
      if (m[3] !== dir) out.push(`says ${m[3] ?? 'as many as'} for ${ours} vs ${paper}`);
      else if (dir) {
        const ratio = dir === 'fewer' ? paper / Math.max(ours, 1) : ours / paper;
        if (m[2] !== ratio.toFixed(1)) out.push(`quotes the ratio ${m[2]}×, it is ${ratio.toFixed(1)}×`);
      }
    }
  }
  if (seen === 0) out.push("no shown sentence gives the training split's size beside NASA-EO-Bench's");
  return out;
}

/** A copy whose results.json `trainQueries` no longer matches the shown training-split sentence. */
export function changeTrainQueries(results: Json): Json {
  return { ...results, trainQueries: numberOf(results.trainQueries) + 1 };
}

/**
 * `trainingVerdict` against the training record: the number of steps/epochs, the last loss, the validation values
 * quoted (first and kept), and the "reused" sentence exactly when the checkpoint was reused.
 */
export function trainingVerdictProblems(text: string, t: { unit: 'step' | 'epoch'; losses: readonly number[] | null; lastLoss: number; count: number; validation: readonly { at: number; value: number }[]; kept: number; reused: boolean }): string[] {
  const out: string[] = [];
  const said = /The checkpoint was reused/.test(text);
  if (said !== t.reused) out.push(`${said ? 'says' : 'does not say'} the checkpoint was reused, results.json says reusedCheckpoint = ${t.reused}`);
  const loss = new RegExp(String.raw`the training loss went from (${NUM}) to (${NUM}) over (\d+) ${t.unit}s`).exec(text);
  if (t.count >= 2) {
    if (!loss) out.push(`no sentence on the training loss over ${t.count} ${t.unit}s`);
    else {
      if (Number(loss[3]) !== t.count) out.push(`says ${loss[3]} ${t.unit}s, results.json has ${t.count}`);
      if (loss[2] !== f3(t.lastLoss)) out.push(`quotes the last loss ${loss[2]}, results.json has ${f3(t.lastLoss)}`);
      if (t.losses && loss[1] !== f3(t.losses[0])) out.push(`quotes the first loss ${loss[1]}, results.json has ${f3(t.losses[0])}`);
    }
  }
  const val = new RegExp(String.raw`validation (?:MAP|MRR) went from (${NUM}) \(${t.unit} (\d+)\) to (${NUM}) \(${t.unit} (\d+), the kept model`).exec(text);
  if (t.validation.length >= 2) {
    const first = t.validation[0];
    const kept = t.validation.find((v) => v.at === t.kept) ?? t.validation[t.validation.length - 1];
    if (!val) out.push('no sentence on the validation metric');
    else if (val[1] !== f3(first.value) || Number(val[2]) !== first.at || val[3] !== f3(kept.value) || Number(val[4]) !== kept.at)
      out.push(`quotes validation ${val[1]} (${t.unit} ${val[2]}) → ${val[3]} (${t.unit} ${val[4]}), results.json has ${f3(first.value)} (${first.at}) → ${f3(kept.value)} (${kept.at})`);
  }
  return out;
}

/** A copy with results.json's training record saying the opposite of what happened to the checkpoint. */
export function flipReusedCheckpoint(results: Json): Json {
  const training = (results.training ?? {}) as Row;
  return { ...results, training: { ...training, reusedCheckpoint: !training.reusedCheckpoint } };
}

/** The Try-it default sentence ("Default setting (…): the reported row") exactly when results.json's `tryIt.changed` is false, naming its setting. */
export function tryItDefaultProblems(results: Json): string[] {
  const tryIt = (results.tryIt ?? {}) as Row;
  const text = shownWith(results, /^Default setting \(/);
  const out: string[] = [];
  if ((text !== null) === (tryIt.changed === true)) out.push(`${text ? 'shows' : 'does not show'} the Try-it default sentence, results.json has tryIt.changed = ${String(tryIt.changed)}`);
  const m = text ? /^Default setting \((.*?)\): /.exec(text) : null;
  if (m && m[1] !== tryIt.setting) out.push(`names the Try-it setting ${m[1]}, results.json has ${String(tryIt.setting)}`);
  return out;
}

/** Every metric of two rows equal (within 1e-12). */
export function sameMetrics(a: Row | undefined, b: Row | undefined): boolean {
  return !!a && !!b && METRIC_NAMES.every((m) => Math.abs(numberOf(a[m]) - numberOf(b[m])) <= 1e-12);
}
