/**
 * Which field of a user's benchmark file holds the query, the positives, the split and the id (`guessEoBenchFields`,
 * with overrides per role), and the mapping as lines to print. Loading and importing the file: eobench.ts.
 */
import { EoError } from '../errors';
import { EOBENCH_FIELD_NAMES, normalizeSplit, pickField } from './eobench-read';
import { isConceptId, isPlainObject } from './validate';

export type Obj = Record<string, unknown>;
export function splitIdList(s: string): string[] {
  return s
    .split(/[;|,\s]+/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}
// ---------------------------------------------------------------------------------------------------------------
// Importing a copy with unknown field names: guess which field holds what, or take the user's mapping

/** The roles a field can play in a NASA-EO-Bench record. */
export type EoBenchRole = 'id' | 'query' | 'positives' | 'split';
const ROLES: readonly EoBenchRole[] = ['query', 'positives', 'split', 'id'];

/** Extra names (beyond EOBENCH_FIELD_NAMES) a field is recognised by when guessing. */
const GUESS_NAMES: Record<EoBenchRole, readonly string[]> = {
  id: [...EOBENCH_FIELD_NAMES.id, 'query-id', 'queryid', 'uid', 'key'],
  query: [...EOBENCH_FIELD_NAMES.query, 'query_text', 'querytext', 'task', 'prompt', 'request', 'information_need', 'search_query'],
  positives: [
    ...EOBENCH_FIELD_NAMES.positives, 'relevant_datasets', 'datasets', 'dataset_id', 'dataset', 'concept_ids', 'cmr_ids', 'cmr_id',
    'gold', 'gold_ids', 'answers', 'targets', 'qrels', 'positive_ids', 'corpus_ids',
  ],
  split: [...EOBENCH_FIELD_NAMES.split, 'subset', 'fold', 'partition', 'set'],
};

/** How one role's field was chosen. */
export interface EoBenchFieldChoice {
  /** The record field, or null (id: generated `<file>:<line>`; split: the default split). */
  field: string | null;
  how: 'override' | 'name' | 'content' | 'none';
  /** One line for the user: what was chosen and why. */
  why: string;
}

export type EoBenchFieldMapping = Record<EoBenchRole, EoBenchFieldChoice>;

interface FieldStats {
  key: string;
  present: number;
  strings: number;
  meanWords: number;
  /** Records whose value holds at least one CMR concept id (array, object list or delimited string). */
  withConceptIds: number;
  /** Records whose value is a split name. */
  splitNames: number;
}

function conceptIdsIn(v: unknown): number {
  const ids: string[] = [];
  const visit = (x: unknown) => {
    if (typeof x === 'string') ids.push(...splitIdList(x.replace(/[[\]"']/g, ' ')));
    else if (Array.isArray(x)) x.forEach(visit);
    else if (isPlainObject(x)) Object.values(x).forEach(visit);
  };
  visit(v);
  return ids.filter(isConceptId).length;
}

function fieldStats(records: readonly Obj[]): FieldStats[] {
  const byKey = new Map<string, FieldStats & { words: number }>();
  for (const o of records)
    for (const [key, v] of Object.entries(o)) {
      if (v === undefined || v === null || v === '') continue;
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { key, present: 0, strings: 0, meanWords: 0, withConceptIds: 0, splitNames: 0, words: 0 }));
      s.present++;
      if (typeof v === 'string') {
        s.strings++;
        s.words += v.trim().split(/\s+/).length;
        if (normalizeSplit(v) !== null) s.splitNames++;
      }
      if (conceptIdsIn(v) > 0) s.withConceptIds++;
    }
  return [...byKey.values()].map(({ words, ...s }) => ({ ...s, meanWords: s.strings > 0 ? words / s.strings : 0 }));
}

/**
 * Decide which field holds the query, the positives, the split and the id. Per role, in order: the user's
 * override (must name a field that occurs), a field with a known name, a field whose content fits (query: the
 * string field with the most words among those of 2-60 words on average, else the wordiest; positives: the field
 * whose values hold CMR concept ids in most records; split: a string field of split names only); id and split
 * may stay unset. No query or positives field → DATA_INVALID naming the fields seen and the override to pass.
 */
export function guessEoBenchFields(records: readonly unknown[], file: string, overrides: Partial<Record<EoBenchRole, string>> = {}): EoBenchFieldMapping {
  const objs = records
    .slice(0, 1000)
    .filter(isPlainObject)
    .map((o) => (isPlainObject(o.row) && pickField(o, GUESS_NAMES.query) === null ? o.row : o));
  const stats = fieldStats(objs);
  const seen = stats.map((s) => s.key);
  const seenText = seen.length > 0 ? seen.join(', ') : '(none)';
  const taken = new Set<string>();
  const out = {} as EoBenchFieldMapping;
  const byName = (role: EoBenchRole) => {
    for (const n of GUESS_NAMES[role]) {
      const s = stats.find((x) => x.key.toLowerCase() === n.toLowerCase() && !taken.has(x.key));
      if (s) return s.key;
    }
    return null;
  };
  const n = Math.max(1, objs.length);
  for (const role of ROLES) {
    const o = overrides[role];
    if (o !== undefined) {
      const s = stats.find((x) => x.key === o) ?? stats.find((x) => x.key.toLowerCase() === o.toLowerCase());
      if (!s) throw new EoError('INVALID_ARGUMENT', `--field ${role}=${o}: no record of ${file} has a field "${o}" (fields seen: ${seenText})`, { file, field: o });
      out[role] = { field: s.key, how: 'override', why: `"${s.key}" (given with --field ${role}=${o})` };
      taken.add(s.key);
      continue;
    }
    const named = byName(role);
    if (named !== null) {
      out[role] = { field: named, how: 'name', why: `"${named}" (by its name)` };
      taken.add(named);
      continue;
    }
    let pick: FieldStats | undefined;
    let why = '';
    const free = stats.filter((s) => !taken.has(s.key));
    if (role === 'query') {
      const texts = free.filter((s) => s.strings >= 0.9 * n && s.meanWords >= 2 && s.withConceptIds < 0.5 * n);
      const short = texts.filter((s) => s.meanWords <= 60);
      pick = (short.length > 0 ? short : texts).sort((a, b) => b.meanWords - a.meanWords)[0];
      if (pick) why = `"${pick.key}" (by content: text of ${pick.meanWords.toFixed(1)} words on average)`;
    } else if (role === 'positives') {
      pick = free.filter((s) => s.withConceptIds >= 0.5 * n).sort((a, b) => b.withConceptIds - a.withConceptIds)[0];
      if (pick) why = `"${pick.key}" (by content: CMR concept ids in ${pick.withConceptIds} of ${objs.length} records)`;
    } else if (role === 'split') {
      pick = free.find((s) => s.strings > 0 && s.splitNames === s.present);
      if (pick) why = `"${pick.key}" (by content: only split names)`;
    }
    if (pick) {
      out[role] = { field: pick.key, how: 'content', why };
      taken.add(pick.key);
      continue;
    }
    if (role === 'query' || role === 'positives') {
      const what = role === 'query' ? `named ${GUESS_NAMES.query.join('/')} or holding text of 2+ words` : `named ${GUESS_NAMES.positives.slice(0, 8).join('/')}/… or holding CMR concept ids`;
      throw new EoError('DATA_INVALID', `${file}: no ${role} field could be guessed (fields seen: ${seenText}; none is ${what}); pass --field ${role}=NAME`, { file, field: role });
    }
    out[role] = { field: null, how: 'none', why: role === 'id' ? 'none: ids are generated as <file>:<line>' : 'none: every query gets the default split' };
  }
  return out;
}

/** The mapping as lines to print: `query     <- "task" (given with --field query=task)`. */
export function formatEoBenchFieldMapping(m: EoBenchFieldMapping): string[] {
  return (['query', 'positives', 'split', 'id'] as const).map((r) => `${r.padEnd(9)} <- ${m[r].why}`);
}
