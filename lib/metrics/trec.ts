import * as fs from 'node:fs';
import { EoError } from '../errors';
import { requireFile, writeFileAtomic } from '../util/fs';
import { sortRunEntries } from './rank';
import type { Qrels, Run } from './types';

/**
 * TREC run format: `qid Q0 docno rank score tag`, one line per retrieved dataset, sorted as metrics sort.
 * Scores are written with full double precision (String(x)) so that reading the file back — by us or by
 * trec_eval — cannot create ties that were not there.
 */
export function formatTrecRun(run: Run, tag: string, depth = 100): string {
  if (/\s/.test(tag) || tag === '') throw new EoError('INVALID_ARGUMENT', `run tag must be one non-empty word (got "${tag}")`);
  let out = '';
  for (const [qid, entries] of run) {
    if (/\s/.test(qid)) throw new EoError('INVALID_ARGUMENT', `query id "${qid}" contains whitespace`);
    sortRunEntries(entries, depth).forEach((e, i) => {
      out += `${qid} Q0 ${e.docId} ${i + 1} ${String(e.score)} ${tag}\n`;
    });
  }
  return out;
}

export function writeTrecRun(file: string, run: Run, tag: string, depth = 100): void {
  writeFileAtomic(file, formatTrecRun(run, tag, depth));
}

/** Split a TREC text into whitespace-separated fields per non-empty line; wrong field counts throw TREC_PARSE. */
function trecLines(text: string, file: string, expected: number, shape: string): { fields: string[]; line: number }[] {
  const out: { fields: string[]; line: number }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const fields = line.split(/\s+/);
    if (fields.length !== expected)
      throw new EoError('TREC_PARSE', `${file}:${i + 1}: expected ${expected} fields "${shape}", got ${fields.length}`, { file, line: i + 1 });
    out.push({ fields, line: i + 1 });
  });
  return out;
}

export function parseTrecRun(text: string, file = '<run>'): Run {
  const run: Run = new Map();
  for (const { fields: f, line } of trecLines(text, file, 6, 'qid Q0 docno rank score tag')) {
    const score = Number(f[4]);
    if (!Number.isFinite(score)) throw new EoError('TREC_PARSE', `${file}:${line}: field "score" is not a number: ${f[4]}`, { file, line, field: 'score' });
    let list = run.get(f[0]);
    if (!list) run.set(f[0], (list = []));
    list.push({ docId: f[2], score });
  }
  return run;
}

export function readTrecRun(file: string): Run {
  requireFile(file);
  return parseTrecRun(fs.readFileSync(file, 'utf8'), file);
}

/** TREC qrels: `qid 0 docno rel`. */
export function formatTrecQrels(qrels: Qrels): string {
  let out = '';
  for (const [qid, judged] of qrels) for (const [doc, rel] of judged) out += `${qid} 0 ${doc} ${rel}\n`;
  return out;
}

export function writeTrecQrels(file: string, qrels: Qrels): void {
  writeFileAtomic(file, formatTrecQrels(qrels));
}

export function parseTrecQrels(text: string, file = '<qrels>'): Qrels {
  const q: Qrels = new Map();
  for (const { fields: f, line } of trecLines(text, file, 4, 'qid iter docno rel')) {
    const rel = Number(f[3]);
    if (!Number.isInteger(rel)) throw new EoError('TREC_PARSE', `${file}:${line}: field "rel" is not an integer: ${f[3]}`, { file, line, field: 'rel' });
    let m = q.get(f[0]);
    if (!m) q.set(f[0], (m = new Map()));
    m.set(f[2], rel);
  }
  return q;
}

export function readTrecQrels(file: string): Qrels {
  requireFile(file);
  return parseTrecQrels(fs.readFileSync(file, 'utf8'), file);
}
