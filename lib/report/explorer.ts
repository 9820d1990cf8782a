/**
 * The run explorer of the report site: one self-contained page per notebook folder (`<name>/explorer.html`) built
 * from its TREC run files (`<id>.<split>.run`) and qrels (`qrels.<split>.trec`). Pick two systems; a sorted
 * per-query ΔAP / ΔRR bar plot (inline SVG); click a query to see both top-10s side by side with the labelled
 * datasets marked, each result's rank move, score parts and judge label where the meta carries them; filter by
 * split, stratum, DAAC and query style. Score parts come from the runs' `<id>.<split>.parts.json` sidecars (fusion,
 * query rules, rerank backbones), judge labels from the judge cache. The data is embedded as JSON, the script is
 * plain JS, so the page works from file:// with no server and no network.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkSettings, loadBenchmark } from '../bench/export';
import { stratumOf } from '../bench/split';
import type { Corpus } from '../data/types';
import { loadSnapshot } from '../data/snapshot';
import { EoError } from '../errors';
import { openJudgeCache } from '../judge/judge';
import { judgeCachePath } from '../judge/plan';
import { defaultLlmStorePath } from '../llm/client';
import { averagePrecision, reciprocalRank } from '../metrics/metrics';
import { sortRunEntries } from '../metrics/rank';
import { readRunPartsSidecar, runPartsFile } from '../metrics/run-parts';
import { readRunLabels } from '../metrics/systems';
import { readTrecQrels, readTrecRun } from '../metrics/trec';
import type { Qrels, Run } from '../metrics/types';
import { escapeHtml } from '../util/html';
import { writeFileAtomic } from '../util/fs';
import { EXPLORER_SCRIPT, EXPLORER_STYLE } from './explorer-page';
import type { ExplorerDatasetInfo, ExplorerMeta, ExplorerOptions, ExplorerQueryInfo, ExplorerScoreParts } from './types';

/** The explorer page's file name inside a notebook folder. */
export const EXPLORER_FILE = 'explorer.html';

/** One result as the page shows it: dataset id, score, labelled or not, parts and judge label when known. */
export interface ExplorerResult {
  id: string;
  score: number;
  rel: boolean;
  parts?: ExplorerScoreParts;
  judge?: string | number;
}

/** One system's answers on one split: top-k per query, ranks (to `depth`) of every dataset some system shows, AP and RR. */
export interface ExplorerSystem {
  id: string;
  label: string;
  split: string;
  top: Record<string, ExplorerResult[]>;
  ranks: Record<string, Record<string, number>>;
  AP: Record<string, number>;
  RR: Record<string, number>;
}

export interface ExplorerQuery extends ExplorerQueryInfo {
  id: string;
  split: string;
  stratum: string;
  /** DAACs of the labelled datasets (for the DAAC filter). */
  daacs: string[];
  /** Labelled datasets. */
  relevant: string[];
}

/** Everything the page embeds. */
export interface ExplorerData {
  notebook: string;
  topK: number;
  depth: number;
  systems: ExplorerSystem[];
  queries: ExplorerQuery[];
  datasets: Record<string, ExplorerDatasetInfo>;
}

/** A run file found in a folder. */
interface RunFile {
  id: string;
  split: string;
  file: string;
}

/** `<id>.<split>.run` files of a folder that have their `qrels.<split>.trec` beside them. */
export function explorerRunFiles(dir: string): RunFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.run'))
    .sort()
    .map((f) => {
      const m = /^(.+)\.([^.]+)\.run$/.exec(f);
      return m ? { id: m[1], split: m[2], file: path.join(dir, f) } : null;
    })
    .filter((r): r is RunFile => r !== null && fs.existsSync(path.join(dir, `qrels.${r.split}.trec`)));
}

/** The explorer's data from runs and qrels already read (the folder reader and tests share it). */
export function explorerData(notebook: string, runs: readonly { id: string; split: string; run: Run }[], qrelsBySplit: ReadonlyMap<string, Qrels>, meta: ExplorerMeta = {}, opts: ExplorerOptions = {}): ExplorerData {
  const topK = opts.topK ?? 10;
  const depth = opts.depth ?? 100;
  if (!(Number.isInteger(topK) && topK > 0 && Number.isInteger(depth) && depth >= topK))
    throw new EoError('INVALID_ARGUMENT', `run explorer: topK (${topK}) must be a positive integer and depth (${depth}) an integer ≥ topK`, { field: 'topK' });
  const datasets: Record<string, ExplorerDatasetInfo> = {};
  const queries: ExplorerQuery[] = [];
  for (const [split, qrels] of qrelsBySplit) {
    if (!runs.some((r) => r.split === split)) continue;
    for (const [qid, grades] of [...qrels].sort((a, b) => a[0].localeCompare(b[0]))) {
      const relevant = [...grades].filter(([, g]) => g > 0).map(([d]) => d);
      if (relevant.length === 0) continue;
      const info = meta.queries?.[qid] ?? {};
      const daacs = [...new Set(relevant.map((d) => meta.datasets?.[d]?.daac).filter((d): d is string => !!d))].sort();
      queries.push({ ...info, id: qid, split, stratum: info.stratum ?? stratumOf(relevant.length), daacs, relevant });
    }
  }
  const sorted = runs.map((r) => ({ ...r, byQuery: new Map([...r.run].map(([q, e]) => [q, sortRunEntries(e, depth)])) }));
  const systems: ExplorerSystem[] = sorted.map((r) => {
    const qrels = qrelsBySplit.get(r.split);
    if (!qrels) throw new EoError('DATA_NOT_FOUND', `run explorer: no qrels for split "${r.split}" of run ${r.id}`, { field: 'split' });
    const sys: ExplorerSystem = { id: r.id, label: meta.labels?.[r.id] ?? r.id, split: r.split, top: {}, ranks: {}, AP: {}, RR: {} };
    for (const q of queries) {
      if (q.split !== r.split) continue;
      const entries = r.byQuery.get(q.id) ?? [];
      const rel = new Set(q.relevant);
      sys.AP[q.id] = averagePrecision(entries, rel);
      sys.RR[q.id] = reciprocalRank(entries, rel);
      sys.top[q.id] = entries.slice(0, topK).map((e) => {
        const res: ExplorerResult = { id: e.docId, score: e.score, rel: rel.has(e.docId) };
        const parts = meta.parts?.[r.id]?.[q.id]?.[e.docId];
        if (parts) res.parts = parts;
        const judge = meta.judge?.[q.id]?.[e.docId];
        if (judge !== undefined) res.judge = judge;
        return res;
      });
    }
    return sys;
  });
  // Ranks (to `depth`) of every dataset any system shows for a query, so that the page can say how far a result moved.
  for (const q of queries) {
    const shown = new Set<string>();
    for (const s of systems) for (const e of s.top[q.id] ?? []) shown.add(e.id);
    for (const d of q.relevant) shown.add(d);
    sorted.forEach((r, i) => {
      if (r.split !== q.split) return;
      const ranks: Record<string, number> = {};
      (r.byQuery.get(q.id) ?? []).forEach((e, k) => {
        if (shown.has(e.docId)) ranks[e.docId] = k + 1;
      });
      systems[i].ranks[q.id] = ranks;
    });
    for (const d of shown) if (meta.datasets?.[d]) datasets[d] = meta.datasets[d];
  }
  return { notebook, topK, depth, systems, queries, datasets };
}

/**
 * Score parts of the run files' sidecars (`<id>.<split>.parts.json`, written by `writeRunFiles` for runs that carry
 * them) merged under `meta.parts` (the caller's parts win for a result both name).
 */
export function withSidecarParts(files: readonly RunFile[], meta: ExplorerMeta): ExplorerMeta {
  const parts: NonNullable<ExplorerMeta['parts']> = {};
  for (const f of files) {
    const side = readRunPartsSidecar(runPartsFile(f.file));
    if (!side) continue;
    const sys = (parts[f.id] ??= {});
    for (const [qid, docs] of Object.entries(side.queries)) sys[qid] = { ...sys[qid], ...docs };
  }
  if (Object.keys(parts).length === 0) return meta;
  for (const [id, byQuery] of Object.entries(meta.parts ?? {})) {
    const sys = (parts[id] ??= {});
    for (const [qid, docs] of Object.entries(byQuery)) sys[qid] = { ...sys[qid], ...docs };
  }
  return { ...meta, parts };
}

/** Read a notebook folder's run files, their parts sidecars and qrels into the explorer's data; null when it has no run file with qrels. */
export function readExplorerData(dir: string, meta: ExplorerMeta = {}, opts: ExplorerOptions = {}): ExplorerData | null {
  const files = explorerRunFiles(dir);
  if (files.length === 0) return null;
  const qrels = new Map<string, Qrels>();
  for (const f of files) if (!qrels.has(f.split)) qrels.set(f.split, readTrecQrels(path.join(dir, `qrels.${f.split}.trec`)));
  // labels the notebook recorded beside its run files, under the caller's
  const labels = { ...readRunLabels(dir), ...(meta.labels ?? {}) };
  return explorerData(path.basename(dir), files.map((f) => ({ id: f.id, split: f.split, run: readTrecRun(f.file) })), qrels, withSidecarParts(files, { ...meta, labels }), opts);
}

/**
 * The judge's labels recorded in a judge cache (`judgeCachePath`: every P@K verdict of every run, keyed by query
 * text and dataset), by query id for `queries`: `YES`, `NO` or `unreadable`; where the cache holds more than one
 * judge, each label names its judge's model config. An absent cache gives none.
 */
export function judgeLabelsFromCache(file: string, queries: readonly { id: string; text: string }[]): NonNullable<ExplorerMeta['judge']> {
  if (!fs.existsSync(file)) return {};
  const entries = openJudgeCache(file, () => undefined).records().filter((e) => typeof e.query === 'string');
  const judges = new Set(entries.map((e) => e.judgeId));
  const idsByText = new Map<string, string[]>();
  for (const q of queries) idsByText.set(q.text.trim(), [...(idsByText.get(q.text.trim()) ?? []), q.id]);
  const out: NonNullable<ExplorerMeta['judge']> = {};
  for (const e of [...entries].sort((a, b) => (a.judgeId < b.judgeId ? -1 : a.judgeId > b.judgeId ? 1 : 0))) {
    const label = (e.relevant === null ? 'unreadable' : e.relevant ? 'YES' : 'NO') + (judges.size > 1 ? ` (${e.judgeId.split('@')[0]})` : '');
    for (const qid of idsByText.get(e.query.trim()) ?? []) {
      const byDoc = (out[qid] ??= {});
      byDoc[e.datasetId] = byDoc[e.datasetId] === undefined ? label : `${byDoc[e.datasetId]} / ${label}`;
    }
  }
  return out;
}

/** JSON safe inside a <script> element (no `</script>`, no HTML comment openers, no line separators). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** What the lines under the results mean, when some result carries score parts or a judge label. */
function partsLegend(data: ExplorerData): string {
  const all = data.systems.flatMap((s) => Object.values(s.top).flat());
  const parts = all.some((e) => e.parts) ? ' Under a result, its score parts as its run recorded them: BM25 and semantic scores min-max-normalised over the corpus (raw score in brackets) and α of a convex fusion, or RRF\'s terms 1/(k + rank); the rank in the retrieval list a reranker reordered; the query rules that moved it.' : '';
  const judge = all.some((e) => e.judge !== undefined) ? ' The judge column is the P@K judge\'s recorded verdict.' : '';
  return parts + judge;
}

/** The explorer page: data embedded as JSON, plain JS, inline SVG; `back` is the link to the site's index. */
export function explorerHtml(data: ExplorerData, opts: ExplorerOptions & { back?: string } = {}): string {
  const title = opts.title ?? `Run explorer: ${data.notebook}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${EXPLORER_STYLE}</style></head><body>
<p><a href="${escapeHtml(opts.back ?? '../index.html')}">← reports</a></p>
<h1>${escapeHtml(title)}</h1>
<p>${data.systems.length} runs, ${data.queries.length} labelled queries. Pick two systems; each bar is one query's difference A − B (sorted); click a bar to compare both top-${data.topK}s. Labelled datasets are marked ✓; a move is the dataset's rank in B minus its rank in A (within the top ${data.depth}).${partsLegend(data)}</p>
<form id="controls">
<label>A <select id="sys-a"></select></label>
<label>B <select id="sys-b"></select></label>
<label>metric <select id="metric"><option value="AP">ΔAP</option><option value="RR">ΔRR</option></select></label>
<label>stratum <select id="f-stratum"></select></label>
<label>DAAC <select id="f-daac"></select></label>
<label>style <select id="f-style"></select></label>
</form>
<p id="summary"></p>
<div id="plot"></div>
<div id="detail"><p class="hint">Click a bar to see the query's results.</p></div>
<script id="explorer-data" type="application/json">${scriptJson(data)}</script>
<script>${EXPLORER_SCRIPT}</script>
</body></html>
`;
}

/** Write `<dir>/explorer.html` when the folder has run files; returns its path or null. */
export function writeExplorerPage(dir: string, meta: ExplorerMeta = {}, opts: ExplorerOptions = {}): string | null {
  const data = readExplorerData(dir, meta, opts);
  if (!data) return null;
  const file = path.join(dir, EXPLORER_FILE);
  writeFileAtomic(file, explorerHtml(data, opts));
  return file;
}

/** Explorer meta from a corpus (dataset titles and DAACs) and benchmark queries (their texts and styles). */
export function corpusExplorerMeta(corpus: Pick<Corpus, 'datasets'>, queries: readonly { id: string; text: string; style?: string }[] = []): ExplorerMeta {
  return {
    datasets: Object.fromEntries(corpus.datasets.map((d) => [d.id, { title: d.longName, daac: d.daac }])),
    queries: Object.fromEntries(queries.map((q) => [q.id, q.style ? { text: q.text, style: q.style } : { text: q.text }])),
  };
}

/**
 * `explorerMeta` for the report site of notebook runs: the data snapshot (sample or full, as the notebook's
 * results.json says; default full) and its default benchmark's query texts when benchmark.json is there. A snapshot
 * that cannot be read gives no meta (the page then shows ids), so that the site still builds. Judge labels come from
 * the judge cache (`opts.judgeCache`, default the one beside the LLM record store: `judgeCachePath`).
 */
export function snapshotExplorerMeta(reportsRoot: string, opts: { judgeCache?: string } = {}): (notebook: string) => ExplorerMeta | null {
  const cache = new Map<boolean, ExplorerMeta | null>();
  return (notebook) => {
    let sample = false;
    try {
      sample = JSON.parse(fs.readFileSync(path.join(reportsRoot, notebook, 'results.json'), 'utf8')).sample === true;
    } catch {
      // no results.json: the full snapshot
    }
    if (!cache.has(sample)) {
      let meta: ExplorerMeta | null = null;
      try {
        const corpus = loadSnapshot({ sample });
        const file = path.join(benchmarkSettings({ sample }).dir, 'benchmark.json');
        const queries = fs.existsSync(file) ? loadBenchmark(file, corpus).queries : [];
        meta = corpusExplorerMeta(corpus, queries);
        const judge = judgeLabelsFromCache(opts.judgeCache ?? judgeCachePath(defaultLlmStorePath()), queries);
        if (Object.keys(judge).length > 0) meta.judge = judge;
      } catch {
        meta = null;
      }
      cache.set(sample, meta);
    }
    return cache.get(sample)!;
  };
}
