import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { routerDataDir } from './data';
import { TOOL_NAMES, type LabelledRouterQuery, type RouterEvaluation, type ToolName, type ToolScore } from './types';

/** Default labelled set: lib/router/data/labelled-queries.jsonl. */
export function defaultLabelledQueriesFile(): string {
  return path.join(routerDataDir(), 'labelled-queries.jsonl');
}

/** Read the labelled router set (JSON Lines); a bad row fails naming file, line and field. */
export function loadLabelledQueries(file = defaultLabelledQueriesFile()): LabelledRouterQuery[] {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `labelled router queries not found: ${file}`, { file });
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out: LabelledRouterQuery[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    const at = `${file}:${i + 1}`;
    let v: any;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw new EoError('DATA_PARSE', `${at}: invalid JSON (${(e as Error).message})`, { file, line: i + 1 });
    }
    const bad = (field: string, why: string) => new EoError('DATA_INVALID', `${at}: field "${field}" ${why}`, { file, line: i + 1, field });
    if (typeof v.id !== 'string' || v.id === '') throw bad('id', 'must be a non-empty string');
    if (ids.has(v.id)) throw bad('id', `repeats "${v.id}"`);
    ids.add(v.id);
    if (typeof v.query !== 'string' || v.query.trim() === '') throw bad('query', 'must be a non-empty string');
    if (!Array.isArray(v.tools) || v.tools.some((t: unknown) => !TOOL_NAMES.includes(t as ToolName))) throw bad('tools', `must be an array of ${TOOL_NAMES.join(', ')}`);
    if (typeof v.fallThrough !== 'boolean') throw bad('fallThrough', 'must be true or false');
    if (typeof v.reason !== 'string' || v.reason.trim() === '') throw bad('reason', 'must be a one-line reason');
    if (v.split !== undefined && v.split !== 'dev' && v.split !== 'heldout') throw bad('split', 'must be "dev" or "heldout"');
    out.push({ id: v.id, query: v.query, tools: v.tools, fallThrough: v.fallThrough, reason: v.reason, split: v.split ?? 'dev' });
  }
  return out;
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const f1 = (p: number, r: number) => (p + r > 0 ? (2 * p * r) / (p + r) : 0);

/** What a router predicted for one labelled query. */
export interface RouterPrediction {
  tools: ToolName[];
  fallThrough: boolean;
}

/**
 * Score a router against labelled queries: per-tool precision/recall/F1 (a tool is predicted when its decision
 * applies), micro averages, exact-match rate of the tool set, fall-through accuracy, and the multi-label confusion
 * matrix (see RouterEvaluation.confusion).
 */
export async function evaluateRouter(
  examples: LabelledRouterQuery[],
  predict: (query: string) => RouterPrediction | Promise<RouterPrediction>,
  tools: readonly ToolName[] = TOOL_NAMES,
): Promise<RouterEvaluation> {
  const labels = [...tools, 'none'];
  const matrix = labels.map(() => labels.map(() => 0));
  const counts = new Map(tools.map((t) => [t, { tp: 0, fp: 0, fn: 0, tn: 0 }]));
  let exact = 0;
  let ftOk = 0;
  const errors: RouterEvaluation['errors'] = [];
  for (const ex of examples) {
    const pred = await predict(ex.query);
    const P = new Set(pred.tools.filter((t) => tools.includes(t)));
    const E = new Set(ex.tools.filter((t) => tools.includes(t)));
    for (const t of tools) {
      const c = counts.get(t)!;
      if (P.has(t) && E.has(t)) c.tp++;
      else if (P.has(t)) c.fp++;
      else if (E.has(t)) c.fn++;
      else c.tn++;
    }
    const eL = E.size ? [...E] : ['none'];
    const pL = P.size ? [...P] : ['none'];
    for (const e of eL) for (const p of pL) matrix[labels.indexOf(e)][labels.indexOf(p)]++;
    const same = P.size === E.size && [...P].every((t) => E.has(t));
    if (same) exact++;
    if (pred.fallThrough === ex.fallThrough) ftOk++;
    if (!same) errors.push({ id: ex.id, query: ex.query, expected: [...E], predicted: [...P], reason: ex.reason });
  }
  const perTool: ToolScore[] = tools.map((t) => {
    const c = counts.get(t)!;
    const precision = ratio(c.tp, c.tp + c.fp);
    const recall = ratio(c.tp, c.tp + c.fn);
    return { tool: t, ...c, precision, recall, f1: f1(precision, recall), support: c.tp + c.fn };
  });
  const tp = perTool.reduce((s, x) => s + x.tp, 0);
  const fp = perTool.reduce((s, x) => s + x.fp, 0);
  const fn = perTool.reduce((s, x) => s + x.fn, 0);
  const mp = ratio(tp, tp + fp);
  const mr = ratio(tp, tp + fn);
  return {
    queries: examples.length, perTool, micro: { precision: mp, recall: mr, f1: f1(mp, mr) },
    exactMatch: ratio(exact, examples.length), fallThroughAccuracy: ratio(ftOk, examples.length),
    confusion: { labels, matrix }, errors,
  };
}
