import * as fs from 'node:fs';
import { EoError } from '../../errors';
import type { DatasetRecord } from '../../data/types';
import { packageFile } from '../../util/paths';
import { QUERY_STYLES, RULE_TEXT_FIELDS, type CheckedDataset, type QueryStyle, type RuleTextField, type StyleQueryOverride, type StyleRule, type StyleTopic, type StyleTopicQuery } from './types';

/** A compiled rule: true when the dataset is selected. */
export type DatasetPredicate = (d: DatasetRecord) => boolean;

const TEXT_FIELDS = new Set<string>(RULE_TEXT_FIELDS);
const COMBINATORS = new Set(['all', 'any', 'not']);
const TOPIC_KEYS = new Set(['id', 'need', 'discipline', 'exact', 'family', 'queries', 'notes', 'checked']);
const QUERY_KEYS = new Set(['text', 'exact', 'checked', 'notes']);
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function fail(where: string, message: string): never {
  throw new EoError('BENCH', `${where}: ${message}`, { where });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compilePatterns(value: unknown, where: string): RegExp[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'string' && p.length > 0)) {
    fail(where, 'expected a non-empty regular expression or a non-empty array of them');
  }
  return (list as string[]).map((p, i) => {
    try {
      return new RegExp(p, 'i');
    } catch (e) {
      return fail(Array.isArray(value) ? `${where}[${i}]` : where, `bad regular expression ${JSON.stringify(p)} (${(e as Error).message})`);
    }
  });
}

function fieldValues(d: DatasetRecord, field: RuleTextField): readonly string[] {
  const v = d[field];
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** The day a dataset's period starts or ends, as comparable `YYYY-MM-DD` text (null when absent). */
function day(iso: string | null | undefined): string | null {
  return iso ? iso.slice(0, 10) : null;
}

/**
 * Compile a rule (see `StyleRule`) into a predicate. `where` names the rule in errors (e.g.
 * `topics.json topic "modis-lst-8day" exact`): an unknown key, a bad regular expression, a malformed period
 * or an empty combinator is an `EoError('BENCH')` naming it and the offending field.
 */
export function compileStyleRule(rule: unknown, where: string): DatasetPredicate {
  if (!isPlainObject(rule)) fail(where, 'a rule must be a JSON object');
  const keys = Object.keys(rule);
  if (keys.length === 0) fail(where, 'empty rule (it would select every dataset)');
  const parts: DatasetPredicate[] = [];
  for (const key of keys) {
    const at = `${where}.${key}`;
    const value = rule[key];
    if (TEXT_FIELDS.has(key)) {
      const field = key as RuleTextField;
      const res = compilePatterns(value, at);
      parts.push((d) => fieldValues(d, field).some((v) => res.some((re) => re.test(v))));
    } else if (key === 'temporalOverlaps') {
      if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'string' && ISO_DATE.test(v)) || value[0] > value[1]) {
        fail(at, 'expected [start, end] as two YYYY-MM-DD dates with start ≤ end');
      }
      const [from, to] = value as [string, string];
      parts.push((d) => {
        const start = day(d.temporalStart);
        if (start === null) return false;
        const end = day(d.temporalEnd) ?? '9999-12-31';
        return start <= to && end >= from;
      });
    } else if (key === 'all' || key === 'any') {
      if (!Array.isArray(value) || value.length === 0) fail(at, 'expected a non-empty array of rules');
      const subs = (value as unknown[]).map((r, i) => compileStyleRule(r, `${at}[${i}]`));
      parts.push(key === 'all' ? (d) => subs.every((p) => p(d)) : (d) => subs.some((p) => p(d)));
    } else if (key === 'not') {
      const sub = compileStyleRule(value, at);
      parts.push((d) => !sub(d));
    } else {
      fail(at, `unknown rule key "${key}" (known: ${[...RULE_TEXT_FIELDS, 'temporalOverlaps', ...COMBINATORS].join(', ')})`);
    }
  }
  return parts.length === 1 ? parts[0] : (d) => parts.every((p) => p(d));
}

/** Ids of the datasets a compiled rule selects, in corpus order. */
export function datasetsMatchingRule(datasets: readonly DatasetRecord[], predicate: DatasetPredicate): string[] {
  const out: string[] = [];
  for (const d of datasets) if (predicate(d)) out.push(d.id);
  return out;
}

function nonEmptyString(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.trim() === '') fail(where, 'expected a non-empty string');
  return v;
}

/** The text of a topic query (a plain string, or the `text` of an override). */
export function styleQueryText(q: StyleTopicQuery): string {
  return typeof q === 'string' ? q : q.text;
}

function validateQuery(q: unknown, where: string): StyleTopicQuery {
  if (typeof q === 'string') return nonEmptyString(q, where).trim();
  if (!isPlainObject(q)) fail(where, 'expected a query string or {"text": "...", "exact": <rule>}');
  for (const k of Object.keys(q)) if (!QUERY_KEYS.has(k)) fail(`${where}.${k}`, `unknown query key (known: ${[...QUERY_KEYS].join(', ')})`);
  const text = nonEmptyString(q.text, `${where}.text`).trim();
  if (q.exact === undefined) fail(`${where}.exact`, `query ${JSON.stringify(text)}: an object query needs an exact rule (or write the query as a plain string)`);
  compileStyleRule(q.exact, `${where}.exact`);
  const out: StyleQueryOverride = { text, exact: q.exact as StyleRule };
  if (q.checked !== undefined) out.checked = validateChecked(q.checked, `${where}.checked`);
  if (q.notes !== undefined) out.notes = nonEmptyString(q.notes, `${where}.notes`);
  return out;
}

function validateQueries(v: unknown, where: string): Record<QueryStyle, StyleTopicQuery[]> {
  if (!isPlainObject(v)) fail(where, `expected an object with the styles ${QUERY_STYLES.join(', ')}`);
  for (const k of Object.keys(v)) if (!(QUERY_STYLES as readonly string[]).includes(k)) fail(`${where}.${k}`, `unknown query style (known: ${QUERY_STYLES.join(', ')})`);
  const out = {} as Record<QueryStyle, StyleTopicQuery[]>;
  for (const style of QUERY_STYLES) {
    const list = v[style];
    if (!Array.isArray(list) || list.length === 0) fail(`${where}.${style}`, 'needs at least one query');
    out[style] = list.map((q, i) => validateQuery(q, `${where}.${style}[${i}]`));
    const seen = new Set<string>();
    out[style].forEach((q, i) => {
      const text = styleQueryText(q).toLowerCase();
      if (seen.has(text)) fail(`${where}.${style}[${i}]`, `duplicate query ${JSON.stringify(styleQueryText(q))}`);
      seen.add(text);
    });
  }
  return out;
}

function validateChecked(v: unknown, where: string): CheckedDataset[] {
  if (!Array.isArray(v)) fail(where, 'expected an array of {id, grade}');
  return v.map((c, i) => {
    const at = `${where}[${i}]`;
    if (!isPlainObject(c)) fail(at, 'expected {id, grade}');
    for (const k of Object.keys(c)) if (k !== 'id' && k !== 'grade') fail(`${at}.${k}`, 'unknown key (known: id, grade)');
    const id = nonEmptyString(c.id, `${at}.id`);
    if (c.grade !== 0 && c.grade !== 1 && c.grade !== 2) fail(`${at}.grade`, 'expected 0, 1 or 2');
    return { id, grade: c.grade };
  });
}

/**
 * Check a parsed topics file and return it typed. Every problem is an `EoError('BENCH')` naming the source, the
 * topic id and the field: an unknown key, a bad rule (see `compileStyleRule`), a style with no query, a bad
 * query override (not a string nor `{text, exact, checked?, notes?}`, a bad rule or `checked`), a duplicate or
 * non-kebab-case id. Whether each rule selects anything is checked by the builder (it needs a corpus).
 */
export function validateStyleTopics(raw: unknown, source = 'topics'): StyleTopic[] {
  const list = isPlainObject(raw) && Array.isArray(raw.topics) ? raw.topics : raw;
  if (!Array.isArray(list)) fail(source, 'expected an array of topics (or {"topics": [...]})');
  const ids = new Set<string>();
  return list.map((t, i) => {
    const pos = `${source} topic #${i + 1}`;
    if (!isPlainObject(t)) fail(pos, 'expected a JSON object');
    const id = nonEmptyString(t.id, `${pos}.id`);
    const where = `${source} topic "${id}"`;
    if (!KEBAB.test(id)) fail(`${where}.id`, 'ids are kebab-case (a-z, 0-9, single hyphens)');
    if (ids.has(id)) fail(`${where}.id`, 'duplicate topic id');
    ids.add(id);
    for (const k of Object.keys(t)) if (!TOPIC_KEYS.has(k)) fail(`${where}.${k}`, `unknown topic key (known: ${[...TOPIC_KEYS].join(', ')})`);
    compileStyleRule(t.exact, `${where}.exact`);
    compileStyleRule(t.family, `${where}.family`);
    const topic: StyleTopic = {
      id,
      need: nonEmptyString(t.need, `${where}.need`),
      discipline: nonEmptyString(t.discipline, `${where}.discipline`),
      exact: t.exact as StyleRule,
      family: t.family as StyleRule,
      queries: validateQueries(t.queries, `${where}.queries`),
    };
    if (t.notes !== undefined) topic.notes = nonEmptyString(t.notes, `${where}.notes`);
    if (t.checked !== undefined) topic.checked = validateChecked(t.checked, `${where}.checked`);
    return topic;
  });
}

/** The shipped topics file. */
export function styleTopicsFile(): string {
  return packageFile('bench', 'styles', 'topics.json');
}

/** Read and validate a topics file (default: the shipped one). A missing file or bad JSON is an `EoError`. */
export function loadStyleTopics(file: string = styleTopicsFile()): StyleTopic[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EoError('DATA_NOT_FOUND', `style topics file not found: ${file} (${(e as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EoError('BENCH', `${file}: not valid JSON (${(e as Error).message})`);
  }
  return validateStyleTopics(raw, file.split(/[\\/]/).pop() ?? file);
}
