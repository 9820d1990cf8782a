/**
 * The claim check of a notebook's prose: what its hand-written markdown cells and its generated sentences say that
 * the outputs or the paper notes must back (issue 44, step 2). Rules, each a function of plain text:
 *  - a value given as the paper's (or NASA-EO-Bench's) must be found in the paper notes (`../shared/notes/paper-*.md`),
 *    as must a GPU the paper is said to have used;
 *  - a hand-written cell quotes no confidence interval: intervals come from the outputs, which change with the data;
 *  - a hand-written cell states no seed result ("three of five seeds"): seed runs are optional and print their own;
 *  - `N = <n>` not given as the paper's is this run's number of queries;
 *  - "α from Eq. 7" is not said of a ranking whose α is adaptive per query (results.json `retrieval.alphaSource`).
 * `paperValueProblems` and the others return problems (empty: the text agrees); `notebookTextProblems` runs them all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../util/paths';
import { shownSentences, type Json } from './claims';

/** The paper notes' text (every `paper-*.md` under `dir`, default `<repo>/../shared/notes`); null when there are none. */
export function readPaperNotes(dir = path.join(repoRoot(), '..', 'shared', 'notes')): string | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir).filter((f) => /^paper-.*\.md$/.test(f)).sort();
  return files.length ? files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n') : null;
}

/** A text's sentences (split after . ! ? and at line ends), as the rules below read them one at a time. */
const sentencesOf = (text: string): string[] => text.split(/(?<=[.!?])\s+|\n/);

const NUMBER = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
const plain = (s: string): string => s.replace(/,/g, '');

/** Every number the notes print (commas dropped), for `inNotes`. */
function notesNumbers(notes: string): number[] {
  return [...notes.matchAll(new RegExp(NUMBER, 'g'))].map((m) => Number(plain(m[0]))).filter(Number.isFinite);
}

/** Whether a number as a text prints it (`0.064`, `17,038`) is one the notes print, at the text's precision (0.0643 gives 0.064). */
export function inNotes(value: string, notes: string): boolean {
  const x = Number(plain(value));
  const decimals = plain(value).split('.')[1]?.length ?? 0;
  const tol = 0.5 * 10 ** -decimals + 1e-12;
  return notesNumbers(notes).some((y) => Math.abs(y - x) <= tol && (decimals > 0 || Number.isInteger(y)));
}

/** Where a sentence gives a value as the paper's: the number right after these words (a few words may come between). */
const ATTRIBUTION = new RegExp(String.raw`(?:the paper's|NASA-EO-Bench's|the paper (?:reports|gives|uses|trains|has)|in the paper|, paper|\(paper)((?:\s+(?![\d])[^\s\d;()]+){0,3})\s+(${NUMBER})((?:\s*(?:vs|/)\s*${NUMBER})*)`, 'g');
/** In a sentence on NASA-EO-Bench, "its <n>" gives NASA-EO-Bench's value too. */
const ITS = new RegExp(String.raw`\bits (${NUMBER})`, 'g');
/** Numbers that name a part of the paper, not a value. */
const PART = /(?:Section|Table|Tables|Eq\.|Figure|Appendix|issue|notebook)\s*$/;
/** A GPU the paper is said to have used (B200, H100, A100, V100). */
const GPU = /\b[ABHV]\d{3}\b/g;

/** Values given as the paper's (or NASA-EO-Bench's) that the paper notes do not print. */
export function paperValueProblems(text: string, notes: string): string[] {
  const out: string[] = [];
  for (const sentence of sentencesOf(text)) {
    if (!/\bpaper\b|NASA-EO-Bench/.test(sentence)) continue;
    for (const m of sentence.matchAll(ATTRIBUTION)) {
      if (PART.test(m[1])) continue;
      const values = [m[2], ...[...(m[3] ?? '').matchAll(new RegExp(NUMBER, 'g'))].map((x) => x[0])];
      for (const v of values) {
        if (plain(v).length === 1) continue; // one digit: a count in words' place ("the paper's 5 models"), not a measured value
        if (!inNotes(v, notes)) out.push(`gives ${v} as the paper's, which the paper notes do not print: "${sentence.trim().slice(0, 200)}"`);
      }
    }
    if (/NASA-EO-Bench/.test(sentence))
      for (const m of sentence.matchAll(ITS)) if (!inNotes(m[1], notes)) out.push(`gives ${m[1]} as NASA-EO-Bench's, which the paper notes do not print: "${sentence.trim().slice(0, 200)}"`);
    for (const g of sentence.match(GPU) ?? []) if (!notes.includes(g)) out.push(`says the paper used a ${g}, which the paper notes do not say: "${sentence.trim().slice(0, 200)}"`);
  }
  return out;
}

// an interval of two decimals, optionally after the value it is the CI of: `+.009 [−.002, .020]`, `(+.052, +.096)`
const INTERVAL = /([+−-]\d*\.\d+\s*)?[[(]([+−-]?)\d*\.\d+,\s*([+−-]?)\d*\.\d+[\])]/g;

/**
 * A hand-written cell that quotes a confidence interval (`(+.052, +.096)`, `+.009 [−.002, .020]`, `CI [0.01, 0.05]`):
 * intervals come from the outputs, which change with the data. An interval counts as a CI when it follows a signed
 * value or "CI", or holds a signed bound (a coordinate pair such as `(40.7, 74.0)` does not).
 */
export function quotedIntervalProblems(markdown: string): string[] {
  for (const m of markdown.matchAll(INTERVAL)) {
    const ci = m[1] !== undefined || m[2] !== '' || m[3] !== '' || /CI\s*$/.test(markdown.slice(Math.max(0, m.index! - 8), m.index));
    if (ci) return [`a hand-written cell quotes the interval ${m[0].trim()}; intervals come from the outputs (they change with the data): "${lineAround(markdown, m.index!)}"`];
  }
  return [];
}

/** A hand-written cell that states what a seed run found ("stopped three of five seeds"): seed runs are optional and print their own numbers. */
export function seedResultProblems(markdown: string): string[] {
  const m = /\b(?:\w+|\d+) of (?:\w+|\d+) (?:training )?seeds\b/i.exec(markdown);
  return m ? [`a hand-written cell states a seed result ("${m[0]}") that this run does not produce: "${lineAround(markdown, m.index)}"`] : [];
}

/** `N = <n>` said of this run (not the paper's, not a formula) must be results.json's `queries`. */
export function queryCountProblems(text: string, queries: unknown): string[] {
  if (typeof queries !== 'number') return [];
  const out: string[] = [];
  for (const sentence of sentencesOf(text)) {
    for (const m of sentence.matchAll(/\bN = \**(\d[\d,]*)\**/g)) {
      const before = sentence.slice(0, m.index);
      if (/paper|NASA-EO-Bench|at most|up to|≤|\$/.test(before)) continue;
      if (Number(plain(m[1])) !== queries) out.push(`says N = ${m[1]} of this run; it has ${queries} queries: "${sentence.trim().slice(0, 200)}"`);
    }
  }
  return out;
}

/** "α from Eq. 7" said of a ranking whose α is adaptive per query (results.json `retrieval.alphaSource`). */
export function alphaMethodProblems(text: string, results: Json): string[] {
  const source = (results.retrieval as { alphaSource?: unknown } | undefined)?.alphaSource;
  if (typeof source !== 'string' || !/^adaptive/.test(source)) return [];
  // "α from Eq. 7 …", "α from the stored fusion record (Eq. 7 …": a fixed α; "starting from Eq. 7's α" is not caught
  const m = /α (?:is )?(?:set )?from [^.;]{0,40}?Eq\. 7\b/.exec(text);
  return m ? [`says "${m[0]}", but this ranking's α is ${source.slice(0, 60)}…: "${lineAround(text, m.index)}"`] : [];
}

const lineAround = (text: string, at: number): string => {
  const start = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end < 0 ? undefined : end).trim().slice(0, 200);
};

/** The markdown cells of a notebook (`.ipynb` JSON), as text. */
export function markdownCells(ipynb: { cells?: { cell_type?: string; source?: string | string[] }[] }): string[] {
  return (ipynb.cells ?? []).filter((c) => c.cell_type === 'markdown').map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source ?? ''));
}

/**
 * Every problem of a notebook's prose: its hand-written markdown cells and the sentences it showed (results.json
 * `shownText`), against its results and the paper notes (null: there are none here, and the paper-value rule is
 * skipped; the caller says so).
 */
export function notebookTextProblems(results: Json, markdown: readonly string[], notes: string | null): string[] {
  const all = [...markdown, ...shownSentences(results)];
  return [
    ...(notes === null ? [] : all.flatMap((t) => paperValueProblems(t, notes))),
    ...markdown.flatMap(quotedIntervalProblems),
    ...markdown.flatMap(seedResultProblems),
    ...all.flatMap((t) => queryCountProblems(t, results.queries)),
    ...all.flatMap((t) => alphaMethodProblems(t, results)),
  ];
}
