import { packageFile } from '../util/paths';
import { loadPromptTemplate } from '../util/prompt';
import type { DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { createLimiter } from '../llm/client';
import { canonicalJson } from '../llm/key';
import { openKeyedJsonlLog, type KeyedJsonlLog } from '../llm/store';
import { mean, precisionAtFromJudge } from '../metrics/metrics';
import { sortRunEntries } from '../metrics/rank';
import { sha256 } from '../util/hash';
import type { ChatRequest } from '../llm/types';
import type {
  JudgeCacheEntry,
  JudgeRunQuery,
  JudgeParseKind,
  JudgePromptTemplate,
  JudgeRunOptions,
  JudgeRunResult,
  JudgeStats,
  JudgeVerdict,
  LlmJudge,
  LlmJudgeOptions,
  ParsedJudgeAnswer,
} from './types';

const KINDS: readonly JudgeParseKind[] = ['exact', 'prefix', 'json', 'marker', 'sole-word', 'failed'];

function zeroKinds(): Record<JudgeParseKind, number> {
  return Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<JudgeParseKind, number>;
}

/** lib/judge/prompts/judge.md (found beside the TypeScript source also when running from dist/). */
export function defaultJudgePromptPath(): string {
  return packageFile('judge', 'prompts', 'judge.md');
}

/** The judge prompt template (===SYSTEM=== / ===USER=== sections; see the file header: written from the paper's description). */
export function loadJudgePrompt(file = defaultJudgePromptPath()): JudgePromptTemplate {
  return loadPromptTemplate(file);
}

/** System + user messages for one (query, dataset) pair. */
export function judgeMessages(tpl: JudgePromptTemplate, query: string, d: DatasetRecord, summaryChars = 1200): { role: 'system' | 'user'; content: string }[] {
  const abs = d.abstract.replace(/\s+/g, ' ').trim();
  const summary = abs.length > summaryChars ? `${abs.slice(0, summaryChars)}…` : abs;
  const fill: Record<string, string> = { QUERY: query.trim(), TITLE: d.longName.trim(), SHORT_NAME: d.shortName ?? '(none)', SUMMARY: summary || '(no summary)' };
  const user = tpl.user.replace(/\{\{(QUERY|TITLE|SHORT_NAME|SUMMARY)\}\}/g, (_m, k: string) => fill[k]);
  return [
    { role: 'system', content: tpl.system },
    { role: 'user', content: user },
  ];
}

/** The chat request of one judgement, exactly as the judge sends it (temperature 0; defaults as in LlmJudgeOptions). */
export function judgeChatRequest(tpl: JudgePromptTemplate, query: string, d: DatasetRecord, opts: { summaryChars?: number; maxTokens?: number } = {}): ChatRequest {
  return { messages: judgeMessages(tpl, query, d, opts.summaryChars ?? 1200), temperature: 0, maxTokens: opts.maxTokens ?? 32, stage: 'judge' };
}

/**
 * The judge requests of a run's top-`depth` (default 20) per query, one per distinct (query text, dataset), for
 * batch submission with `runBatch`; `createLlmJudge` with a replay-mode client then finds every answer.
 */
export function judgeBatchRequests(
  run: Map<string, { docId: string; score: number }[]>,
  queries: readonly JudgeRunQuery[],
  datasets: (id: string) => DatasetRecord | undefined,
  opts: { depth?: number; prompt?: JudgePromptTemplate; summaryChars?: number; maxTokens?: number } = {},
): ChatRequest[] {
  const tpl = opts.prompt ?? loadJudgePrompt();
  const seen = new Set<string>();
  const out: ChatRequest[] = [];
  for (const q of queries) {
    for (const e of sortRunEntries(run.get(q.id) ?? [], opts.depth ?? 20)) {
      const pk = `${q.text.trim()}\u0000${e.docId}`;
      if (seen.has(pk)) continue;
      seen.add(pk);
      const d = datasets(e.docId);
      if (!d) throw new EoError('DATA_NOT_FOUND', `judgeBatchRequests: dataset ${e.docId} (query ${q.id}) has no record`, { datasetId: e.docId, queryId: q.id });
      out.push(judgeChatRequest(tpl, q.text, d, opts));
    }
  }
  return out;
}

const YES_NO_WORD = /\b(yes|no)\b/gi;

function yesNo(s: string): boolean | null {
  const u = s.toLowerCase();
  return u === 'yes' ? true : u === 'no' ? false : null;
}

/**
 * Read a YES/NO judge answer. In order: `<think>…</think>` removed (an unclosed `<think>` drops the rest);
 * code fences, markdown emphasis and quotes removed; then
 * `exact` (only YES or NO, any case, optional final punctuation) →
 * `json` (`{"answer"|"verdict"|"relevant"|"judgment"|"judgement": "yes"/"no"/true/false}`) →
 * `prefix` (starts with YES/NO as a word: "Yes, it measures …") →
 * `marker` (the last "answer/verdict/judgment: YES|NO") →
 * `sole-word` (only one of the two words occurs, possibly several times) →
 * `failed` (relevant: null).
 */
export function parseJudgeAnswer(text: string): ParsedJudgeAnswer {
  let t = text;
  const thinkStripped = /<think>/i.test(t);
  t = t.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/<think>[\s\S]*$/i, '');
  t = t.replace(/```[a-z]*\n?/gi, '').replace(/[*_`"'“”]/g, '').trim();
  const done = (relevant: boolean | null, kind: JudgeParseKind): ParsedJudgeAnswer => ({ relevant, kind, thinkStripped });
  const exact = /^(yes|no)\s*[.!]?$/i.exec(t);
  if (exact) return done(yesNo(exact[1]), 'exact');
  const jsonMatch = /\{[\s\S]*\}/.exec(text.replace(/<think>[\s\S]*?<\/think>/gi, ''));
  if (jsonMatch) {
    try {
      const o = JSON.parse(jsonMatch[0]) as Record<string, unknown>;
      for (const k of ['answer', 'verdict', 'relevant', 'judgment', 'judgement', 'label']) {
        const v = o?.[k];
        if (typeof v === 'boolean') return done(v, 'json');
        if (typeof v === 'string' && yesNo(v.trim()) !== null) return done(yesNo(v.trim()), 'json');
      }
    } catch {
      /* not JSON: fall through */
    }
  }
  const prefix = /^(yes|no)\b/i.exec(t);
  if (prefix) return done(yesNo(prefix[1]), 'prefix');
  const markers = [...t.matchAll(/\b(?:final answer|answer|verdict|judge?ment|decision)\s*(?:is)?\s*[:=\-]?\s*(yes|no)\b/gi)];
  if (markers.length > 0) return done(yesNo(markers[markers.length - 1][1]), 'marker');
  const words = new Set([...t.matchAll(YES_NO_WORD)].map((m) => m[1].toLowerCase()));
  if (words.size === 1) return done(yesNo([...words][0]), 'sole-word');
  return done(null, 'failed');
}

function validateCacheEntry(v: unknown, where: string): JudgeCacheEntry {
  const o = v as Partial<JudgeCacheEntry> | null;
  if (o === null || typeof o !== 'object') throw new EoError('DATA_INVALID', `${where}: judge cache entry is not an object`);
  for (const f of ['key', 'judgeId', 'datasetId', 'text'] as const)
    if (typeof o[f] !== 'string') throw new EoError('DATA_INVALID', `${where}: field "${f}" missing or not a string`);
  if (!(o.relevant === null || typeof o.relevant === 'boolean')) throw new EoError('DATA_INVALID', `${where}: field "relevant" must be true, false or null`);
  if (!KINDS.includes(o.kind as JudgeParseKind)) throw new EoError('DATA_INVALID', `${where}: field "kind" must be one of ${KINDS.join(', ')}`);
  return o as JudgeCacheEntry;
}

/** Open a judge cache file (keyed append-only JSONL; torn last line tolerated, see openKeyedJsonlLog). */
export function openJudgeCache(file: string, log?: (line: string) => void): KeyedJsonlLog<JudgeCacheEntry> {
  return openKeyedJsonlLog<JudgeCacheEntry>(file, { validate: validateCacheEntry, keyOf: (e) => e.key, label: 'judge cache', log });
}

/** Cache key of a (judge, query text, dataset id) pair. */
export function judgeCacheKey(judgeId: string, query: string, datasetId: string): string {
  return sha256(canonicalJson({ judgeId, query: query.trim(), datasetId })).slice(0, 32);
}

/**
 * The paper's P@K judge: one LLM call per (query, dataset) asking whether the dataset measures the physical
 * variable or phenomenon the query requires; YES/NO read with `parseJudgeAnswer` (repairs and failures counted;
 * a failure counts as not relevant). Calls go through the client, so they are recorded / replayed like every
 * call; verdicts are also cached per (judge id, query, dataset) so overlapping runs never ask twice.
 */
export function createLlmJudge(opts: LlmJudgeOptions): LlmJudge {
  const client = opts.client;
  const tpl = opts.prompt ?? loadJudgePrompt();
  const summaryChars = opts.summaryChars ?? 1200;
  const maxTokens = opts.maxTokens ?? 32;
  const promptHash = sha256(canonicalJson({ tpl, summaryChars, maxTokens })).slice(0, 12);
  const id = `${client.config.id}@${client.config.model}#${promptHash}`;
  const memory = new Map<string, JudgeCacheEntry>();
  const file = opts.cache ? openJudgeCache(opts.cache, opts.log) : null;
  const inFlight = new Map<string, Promise<JudgeCacheEntry>>();
  const stats: JudgeStats = { judgements: 0, cacheHits: 0, llmCalls: 0, repaired: 0, failed: 0, costUsd: 0, byKind: zeroKinds() };

  async function ask(key: string, query: string, d: DatasetRecord): Promise<JudgeCacheEntry> {
    const r = await client.chat(judgeChatRequest(tpl, query, d, { summaryChars, maxTokens }));
    const parsed = parseJudgeAnswer(r.text);
    const entry: JudgeCacheEntry = {
      key,
      judgeId: id,
      query: query.trim(),
      datasetId: d.id,
      ...parsed,
      text: r.text,
      model: r.model,
      costUsd: r.costUsd,
      recordKey: r.recordKey,
      timestamp: new Date().toISOString(),
    };
    stats.llmCalls++;
    stats.costUsd += r.costUsd;
    if (parsed.kind === 'failed') stats.failed++;
    else if (parsed.kind !== 'exact') stats.repaired++;
    stats.byKind[parsed.kind]++;
    memory.set(key, entry);
    file?.append(entry);
    return entry;
  }

  async function judge(query: string, d: DatasetRecord): Promise<JudgeVerdict> {
    if (typeof query !== 'string' || query.trim() === '') throw new EoError('INVALID_ARGUMENT', `judge: empty query text (dataset ${d?.id})`);
    const key = judgeCacheKey(id, query, d.id);
    const cached = memory.get(key) ?? file?.get(key);
    let entry: JudgeCacheEntry;
    let fromCache = false;
    if (cached) {
      entry = cached;
      fromCache = true;
      stats.cacheHits++;
    } else {
      let p = inFlight.get(key);
      if (!p) {
        p = ask(key, query, d).finally(() => inFlight.delete(key));
        inFlight.set(key, p);
      } else {
        fromCache = true;
        stats.cacheHits++;
      }
      entry = await p;
    }
    stats.judgements++;
    return {
      datasetId: d.id,
      relevant: entry.relevant,
      kind: entry.kind,
      thinkStripped: entry.thinkStripped,
      text: entry.text,
      model: entry.model,
      costUsd: fromCache ? 0 : entry.costUsd,
      fromCache,
    };
  }

  return { id, judge, stats };
}

/** Whether an unreadable judge answer is a refusal to judge (an apology, "cannot determine", or nothing at all). */
export function isJudgeRefusal(text: string): boolean {
  const t = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  return t === '' || /\b(?:i'?m sorry|i am sorry|i apologi[sz]e|i can(?:no|')?t|i am unable|i'm unable|unable to (?:determine|judge|assess|answer)|cannot (?:determine|judge|assess|help|assist|answer)|as an ai)\b/i.test(t);
}

/**
 * How a judge run's calls went, for every judge column: `"12 of 278 calls refused, scored NO"`, `"… refused and 3
 * unreadable, scored NO"`, or `"all 278 calls answered YES/NO"`.
 */
export function judgeFailureNote(r: Pick<JudgeRunResult, 'pairs' | 'failures' | 'refused'>): string {
  const unreadable = r.failures.length - r.refused;
  if (r.failures.length === 0) return `all ${r.pairs} calls answered YES/NO`;
  const parts = [r.refused > 0 ? `${r.refused} refused` : '', unreadable > 0 ? `${unreadable} unreadable` : ''].filter((x) => x !== '');
  return `${parts.join(' and ').replace(/^(\d+)/, `$1 of ${r.pairs} calls`)}, scored NO`;
}

/**
 * Judge-based P@K (default P@5/10/20) for every query, and the macro mean, with `precisionAtFromJudge`.
 * The top max(K) of each query's run (sorted with the metrics' tie rule) is judged once per distinct
 * (query, dataset) pair, `concurrency` at a time; unreadable answers count as not relevant and are listed.
 * A query absent from the run scores 0 (listed in `missingFromRun`); a dataset id with no record is DATA_NOT_FOUND.
 */
export async function judgeRun(opts: JudgeRunOptions): Promise<JudgeRunResult> {
  const ks = [...(opts.ks ?? [5, 10, 20])];
  if (ks.length === 0 || ks.some((k) => !(Number.isInteger(k) && k >= 1))) throw new EoError('INVALID_ARGUMENT', `judgeRun: ks must be positive integers, got ${JSON.stringify(ks)}`);
  const depth = Math.max(...ks);
  const queries: { id: string; text: string }[] =
    opts.queries instanceof Map ? [...opts.queries].map(([id, text]) => ({ id, text })) : (opts.queries as readonly { id: string; text: string }[]).map((q) => ({ id: q.id, text: q.text }));
  const lookup = typeof opts.datasets === 'function' ? opts.datasets : (id: string) => (opts.datasets as ReadonlyMap<string, DatasetRecord>).get(id);
  const limit = createLimiter(opts.concurrency ?? 8);
  const judge = opts.judge;

  const tops = new Map<string, string[]>();
  const missingFromRun: string[] = [];
  const pairs: { queryId: string; text: string; d: DatasetRecord }[] = [];
  const seen = new Set<string>();
  for (const q of queries) {
    const entries = opts.run.get(q.id);
    if (!entries) missingFromRun.push(q.id);
    const top = sortRunEntries(entries ?? [], depth).map((e) => e.docId);
    tops.set(q.id, top);
    for (const docId of top) {
      const d = lookup(docId);
      if (!d) throw new EoError('DATA_NOT_FOUND', `judgeRun: dataset ${docId} (query ${q.id}) has no record in the dataset lookup`, { datasetId: docId, queryId: q.id });
      const pk = `${q.text.trim()}\u0000${docId}`;
      if (seen.has(pk)) continue;
      seen.add(pk);
      pairs.push({ queryId: q.id, text: q.text, d });
    }
  }

  const verdicts = new Map<string, JudgeVerdict>();
  let done = 0;
  let cacheHits = 0;
  let llmCalls = 0;
  let costUsd = 0;
  const byKind = zeroKinds();
  const failures: JudgeRunResult['failures'] = [];
  await Promise.all(
    pairs.map((p) =>
      limit(async () => {
        const v = await judge.judge(p.text, p.d);
        verdicts.set(`${p.text.trim()}\u0000${p.d.id}`, v);
        if (v.fromCache) cacheHits++;
        else llmCalls++;
        costUsd += v.costUsd;
        byKind[v.kind]++;
        if (v.relevant === null) failures.push({ queryId: p.queryId, datasetId: p.d.id, text: v.text });
        opts.onProgress?.(++done, pairs.length);
      }),
    ),
  );

  const perQuery = [];
  for (const q of queries) {
    const ranked = tops.get(q.id)!.map((docId) => ({ docId, score: 0 }));
    const values: Record<string, number> = {};
    for (const k of ks) values[`P@${k}`] = await precisionAtFromJudge(ranked, k, (docId) => verdicts.get(`${q.text.trim()}\u0000${docId}`)?.relevant === true);
    const nFail = ranked.filter((e) => verdicts.get(`${q.text.trim()}\u0000${e.docId}`)?.relevant === null).length;
    perQuery.push({ queryId: q.id, values, failures: nFail });
  }
  const macro: Record<string, number> = {};
  for (const k of ks) macro[`P@${k}`] = mean(perQuery.map((r) => r.values[`P@${k}`]));
  failures.sort((a, b) => (a.queryId < b.queryId ? -1 : a.queryId > b.queryId ? 1 : a.datasetId < b.datasetId ? -1 : 1));
  const refused = failures.filter((f) => isJudgeRefusal(f.text)).length;
  return { judgeId: judge.id, ks, perQuery, macro, missingFromRun, pairs: pairs.length, cacheHits, llmCalls, failures, refused, byKind, costUsd };
}

/** One table row `{system, 'P@5', 'P@10', 'P@20'}` from a judge run. */
export function judgeRunRow(system: string, r: JudgeRunResult): { system: string } & Record<string, number | string> {
  return { system, ...r.macro };
}
