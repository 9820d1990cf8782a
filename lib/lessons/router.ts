/**
 * Views of notebook 08 (the router): score tables of router evaluations, what they show in words, and the tables of
 * one query walked through router → retrieval (`search`). Text is generated from the numbers, never typed.
 */
import type { LabelledRouterQuery, RouterEvaluation, RouterPrediction } from '../router';
import { TOOL_NAMES } from '../router/types';
import type { SearchResponse } from '../search/types';
import { showMarkdown, showTable } from '../report/display';
import type { TableRow } from '../report/types';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
/** How a held-out number compares with its dev number, in one word. */
const trend = (dev: number, heldout: number) => (heldout < dev ? 'drops' : heldout > dev ? 'rises' : 'stays');

/** How often each tool is expected in a labelled set, plus the plain-dataset-search queries (no tool). */
export function routerLabelRows(labelled: readonly LabelledRouterQuery[]): { tool: string; queries: number }[] {
  const rows: { tool: string; queries: number }[] = TOOL_NAMES.map((t) => ({ tool: t as string, queries: labelled.filter((q) => q.tools.includes(t)).length }));
  rows.push({ tool: '(none: plain dataset search)', queries: labelled.filter((q) => q.tools.length === 0).length });
  return rows;
}

/** Per-tool precision/recall/F1 rows of several evaluations (e.g. all, dev, held out), each closed by its micro average. */
export function routerScoreRows(evaluations: Readonly<Record<string, RouterEvaluation>>): TableRow[] {
  const rows: TableRow[] = [];
  for (const [set, ev] of Object.entries(evaluations)) {
    for (const t of ev.perTool) rows.push({ set, tool: t.tool, support: t.support, TP: t.tp, FP: t.fp, FN: t.fn, precision: t.precision, recall: t.recall, F1: t.f1 });
    rows.push({ set, tool: 'micro', support: ev.perTool.reduce((s, t) => s + t.support, 0), TP: null, FP: null, FN: null, precision: ev.micro.precision, recall: ev.micro.recall, F1: ev.micro.f1 });
  }
  return rows;
}

/** Exact tool-set match and fall-through accuracy per evaluation, one row each. */
export function routerSummaryRows(evaluations: Readonly<Record<string, RouterEvaluation>>): TableRow[] {
  return Object.entries(evaluations).map(([set, ev]) => ({ set, queries: ev.queries, 'exact tool-set match': ev.exactMatch, 'fall-through accuracy': ev.fallThroughAccuracy, 'micro F1': ev.micro.f1 }));
}

/** Labelled queries whose predicted fall-through flag disagrees with the label. */
export async function fallThroughMisses(labelled: readonly LabelledRouterQuery[], predict: (q: string) => RouterPrediction | Promise<RouterPrediction>): Promise<TableRow[]> {
  const out: TableRow[] = [];
  for (const q of labelled) {
    const p = await predict(q.query);
    if (p.fallThrough !== q.fallThrough) out.push({ id: q.id, split: q.split, query: q.query, labelled: q.fallThrough, predicted: p.fallThrough });
  }
  return out;
}

/**
 * What the router scores show, in words: the best tools by F1 (every tool tied at the top is named) and the worst
 * (tools with support only), the micro F1 and exact match on the dev and held-out parts and how held out compares
 * with dev (the held-out part was written after the rules were frozen, so a drop there is the rules fitting their own
 * dev phrasing), and the speed.
 */
export function routerVerdict(input: { all: RouterEvaluation; dev?: RouterEvaluation; heldout?: RouterEvaluation; msPerQuery?: number }): string {
  const scored = input.all.perTool.filter((t) => t.support > 0).sort((a, b) => b.f1 - a.f1);
  const out: string[] = [];
  if (scored.length > 0) {
    const top = scored.filter((t) => t.f1 === scored[0].f1);
    const worst = scored[scored.length - 1];
    out.push(`- On all ${input.all.queries} labelled queries the micro F1 is **${input.all.micro.f1.toFixed(3)}**; the exact tool set is right for ${pct(input.all.exactMatch)} of queries.`);
    const best = top.map((t) => `**${t.tool}** (${t.support} queries)`).join(' and ');
    out.push(`- ${top.length > 1 ? `Best tools, tied at F1 ${top[0].f1.toFixed(3)}: ${best}` : `Best tool: **${top[0].tool}** (F1 ${top[0].f1.toFixed(3)}, ${top[0].support} queries)`}` +
      (top.length < scored.length ? `; weakest: **${worst.tool}** (F1 ${worst.f1.toFixed(3)}: ` +
      `${worst.precision < worst.recall ? `precision ${worst.precision.toFixed(3)} — it fires where it should not (${worst.fp} false positives)` : `recall ${worst.recall.toFixed(3)} — it misses ${worst.fn} of its ${worst.support} queries`})` : '') + '.');
  }
  if (input.dev && input.heldout) {
    const gap = input.heldout.micro.f1 - input.dev.micro.f1;
    const word = gap < 0 ? 'drops' : gap > 0 ? 'rises' : 'stays';
    out.push(`- Dev (${input.dev.queries} queries, seen while writing the rules): micro F1 ${input.dev.micro.f1.toFixed(3)}; held out (${input.heldout.queries}, never used to change them): ` +
      `${input.heldout.micro.f1.toFixed(3)}. On phrasing written after the rules were frozen the micro F1 ${word}` +
      (gap === 0 ? ' the same' : ` by ${Math.abs(gap).toFixed(3)}`) +
      ` and the exact tool-set match ${trend(input.dev.exactMatch, input.heldout.exactMatch)} from ${pct(input.dev.exactMatch)} to ${pct(input.heldout.exactMatch)}; the fall-through accuracy ${input.dev.fallThroughAccuracy === input.heldout.fallThroughAccuracy ? `stays at ${pct(input.dev.fallThroughAccuracy)}` : `${trend(input.dev.fallThroughAccuracy, input.heldout.fallThroughAccuracy)} from ${pct(input.dev.fallThroughAccuracy)} to ${pct(input.heldout.fallThroughAccuracy)}`}` +
      (gap < 0 ? ': rules fitted to their own dev phrasing do worse on new phrasing.' : '.'));
  }
  if (input.msPerQuery !== undefined) out.push(`- Routing costs ${input.msPerQuery.toFixed(2)} ms per query: no model, only rules and lookups.`);
  out.push('- The paper reports no router scores to compare with; the labels and rules share an author, so read these as a check of the rules, not a measurement on users\' questions.');
  return out.join('\n');
}

/** The tables of one routed search: the tool decisions that apply, the actions built, and the top datasets. */
export function routedSearchRows(res: SearchResponse): { decisions: TableRow[]; actions: TableRow[]; results: TableRow[] } {
  const router = res.router;
  return {
    decisions: (router?.decisions ?? []).filter((d) => d.applies).map((d) => ({
      tool: d.tool, confidence: d.confidence, fullyAnswers: d.fullyAnswers, rule: d.rule, evidence: d.evidence.map((e) => e.detail).join('; '),
    })),
    actions: (router?.actions ?? []).map((a) => ({ tool: a.tool, rule: a.rule, url: a.url, provenance: JSON.stringify(a.provenance).slice(0, 300) })),
    results: res.results.map((d) => ({
      rank: d.rank, shortName: d.shortName ?? d.id, title: d.longName.slice(0, 70), daac: d.daac, score: d.score,
      bm25: d.components.lexical?.contribution ?? 0, semantic: d.components.semantic?.contribution ?? 0, stage: d.stage,
    })),
  };
}

/** One routed search in words: which tools answer it (and whether fully), whether it falls through, which stage ranked the top dataset. */
export function routedSearchVerdict(res: SearchResponse): string {
  const applied = (res.router?.decisions ?? []).filter((d) => d.applies);
  const tools = applied.length
    ? applied.map((d) => `**${d.tool}** (${d.rule}, confidence ${d.confidence.toFixed(2)}${d.fullyAnswers ? ', answers it fully' : ''})`).join(', ')
    : 'no tool';
  const top = res.results[0];
  const retrieval = res.router?.fallThrough === false
    ? 'The tools answer it, so retrieval is shown only for reference.'
    : top
      ? `It falls through to retrieval ("${res.retrievalQuery}"): the top dataset is ${top.shortName ?? top.id} (${top.daac}), ranked there mostly by ${top.stage === 'both' ? 'both scorers' : top.stage === 'bm25' ? 'BM25' : 'the semantic scorer'}.`
      : 'It falls through to retrieval, which returned nothing.';
  return `"${res.query}" → ${tools}; ${res.router?.actions.length ?? 0} action(s). ${retrieval} (${res.timings.totalMs.toFixed(1)} ms)`;
}

/** Show one routed search: its decisions, actions (when any) and top datasets as tables, then what it shows in words. */
export function showRoutedSearch(res: SearchResponse): void {
  const t = routedSearchRows(res);
  const where = `router ${res.router?.router ?? 'off'}; retrieval ${res.retrieval.label}, α ${res.retrieval.alpha === null ? '—' : res.retrieval.alpha.toFixed(3)} (${res.retrieval.alphaSource})`;
  showTable(t.decisions, { title: `"${res.query}" — decisions (${res.router?.fallThrough === false ? 'answered by the tools' : 'falls through to retrieval'})`, digits: 2 });
  if (t.actions.length) showTable(t.actions, { title: 'actions' });
  showTable(t.results, { title: `top datasets (${res.timings.totalMs.toFixed(1)} ms)`, digits: 3, source: { note: where } });
  showMarkdown(routedSearchVerdict(res));
}
