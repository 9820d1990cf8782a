// Notebook 07 (agentic rerank, Table 6, cost-aware tool routing): its generated verdicts and figures.
// The rerank verdicts it shares with notebook 06 live in lib/lessons/06-llm-rerank.
import type { AgenticPair } from '../../agent/report';
import type { RoutingSweepRow } from '../../agent/routed';
import { STAND_IN_LABEL } from '../../llm/standin';
import { pairedComparisons } from '../../metrics/systems';
import type { PairedComparison } from '../../metrics/types';
import type { RerankOutcome } from '../../rerank/evaluate';
import { barFigure, scatterFigure } from '../../report/figures';
import { gainSentence, sampleSuffix } from '../../report/lesson';
import { f3, signed } from '../../report/numbers';
import { PAPER_AGENTIC_COST_RATIO, PAPER_RERANK_ROWS, paperRerankRow } from '../../report/paper';
import type { Figure } from '../../report/types';
import { ZERO_LINE } from '../06-llm-rerank/views';
import type { VerdictOptions } from '../06-llm-rerank/text';

/**
 * Agentic vs single-shot per model, computed: Table 6's MAP/MRR of both, the paired ΔMRR with its CI, tool-call
 * rate, and the cost ratio (tokens ratio when the model is free, e.g. a local server), with the paper's numbers
 * beside ours where it reports the model.
 */
export function agenticVerdict(pairs: readonly AgenticPair[], opts: VerdictOptions = {}): string {
  if (pairs.length === 0) return `_Table 6 has no LLM rows here: no model is configured or recorded (see the plan above)._${sampleSuffix(opts.sample)}`;
  const lines = pairs.map(({ model, singleShot: s, agentic: a }) => {
    const g = pairedComparisons(a.perQuery, s.perQuery, 'agentic', 'single-shot', ['MRR']);
    const cost = s.summary.costPerQueryUsd > 0 ? `cost ratio agentic/single-shot ${(a.summary.costPerQueryUsd / s.summary.costPerQueryUsd).toFixed(1)}×` : `no price (free endpoint); token ratio ${((a.summary.inputTokens + a.summary.outputTokens) / Math.max(1, s.summary.inputTokens + s.summary.outputTokens)).toFixed(1)}×`;
    const pa = paperRerankRow('NN-SSC + BM25', model, 'agentic');
    const ps = paperRerankRow('NN-SSC + BM25', model, 'listwise');
    const paper = pa && ps ? ` Paper: single-shot ${f3(ps.MAP)}/${f3(ps.MRR)} → agentic ${f3(pa.MAP)}/${f3(pa.MRR)} (MAP/MRR), tool-call rate ${(pa.toolCallRate! * 100).toFixed(1)}%, cost ${PAPER_AGENTIC_COST_RATIO.low}–${PAPER_AGENTIC_COST_RATIO.high}×.` : '';
    const stand = a.label.includes(STAND_IN_LABEL) ? ' (stand-in server: plumbing, not a model\'s judgement)' : '';
    const winner = a.row.MRR > s.row.MRR ? 'agentic' : a.row.MRR < s.row.MRR ? 'single-shot' : 'neither (tie)';
    return `- **${model}**${stand}: MRR single-shot ${f3(s.row.MRR)} vs agentic ${f3(a.row.MRR)} → ${winner} wins; ${gainSentence('MRR', g.find((x) => x.metric === 'MRR'))}; tool-call rate ${(a.summary.toolCallRate * 100).toFixed(1)}% (${a.summary.toolCallsPerQuery.toFixed(2)} calls/query); ${cost}.${paper}`;
  });
  return lines.join('\n') + sampleSuffix(opts.sample);
}

/** Per-query gain of agentic over single-shot (sorted), one line per model; legend below. */
export function agenticGainFigure(pairs: readonly AgenticPair[], metric: 'MAP' | 'MRR' = 'MRR'): Figure {
  return scatterFigure(
    pairs.map((p) => {
      const gain = p.agentic.perQuery.values[metric].map((v, i) => v - p.singleShot.perQuery.values[metric][i]).sort((a, b) => b - a);
      return { x: gain.map((_, i) => i + 1), y: gain, name: p.model, mode: 'lines' as const };
    }),
    { title: `Per-query ${metric === 'MRR' ? 'RR' : 'AP'} gain: agentic − single-shot (sorted)`, xTitle: 'query (sorted by gain)', yTitle: metric === 'MRR' ? 'ΔRR' : 'ΔAP', legend: 'below', layout: ZERO_LINE },
  );
}

/** Tool-call rate beside MAP and MRR for each tool-using system (model or routing policy): grouped bars, legend below. */
export function toolUseFigure(systems: readonly { name: string; outcome: RerankOutcome }[]): Figure {
  return barFigure(
    systems.map((s) => s.name),
    { 'tool-call rate': systems.map((s) => s.outcome.summary.toolCallRate), MAP: systems.map((s) => s.outcome.row.MAP), MRR: systems.map((s) => s.outcome.row.MRR) },
    { title: 'Tool-call rate and quality per model / policy', yTitle: 'share / metric', legend: 'below', layout: { yaxis: { range: [0, 1] } } },
  );
}

/** The routing sweep: MAP and MRR against the tool-call rate, one point per threshold; the trained threshold marked. */
export function routingSweepFigure(rows: readonly { threshold: number; 'tool-call rate': number; MAP: number; MRR: number }[], trained?: number): Figure {
  const pts = [...rows].sort((a, b) => a['tool-call rate'] - b['tool-call rate']);
  const series = (m: 'MAP' | 'MRR') => ({ x: pts.map((r) => r['tool-call rate']), y: pts.map((r) => r[m]), name: m, mode: 'lines+markers' as const });
  const mark = trained === undefined ? [] : rows.filter((r) => r.threshold === trained).map((r) => ({ x: [r['tool-call rate']], y: [r.MAP], name: 'trained threshold', mode: 'markers' as const }));
  return scatterFigure([series('MAP'), series('MRR'), ...mark], { title: 'Tool routing: quality vs tool-call rate (one point per margin threshold)', xTitle: 'tool-call rate', yTitle: 'metric', legend: 'below' });
}

/** Cost per query against the MRR gain over the backbone, one marker per system (offline systems at $0); legend below. */
export function costGainFigure(outcomes: readonly RerankOutcome[], name: (o: RerankOutcome) => string = (o) => o.label): Figure {
  return scatterFigure(
    outcomes.map((o) => ({ x: [o.summary.costPerQueryUsd], y: [o.gain.find((g) => g.metric === 'MRR')?.meanDiff ?? NaN], name: name(o), mode: 'markers' as const })),
    { title: 'Cost per query vs MRR gain over the backbone', xTitle: '$ per query', yTitle: 'ΔMRR', legend: 'below' },
  );
}

/** Thresholds worth sweeping: every decile of the test margins, the trained threshold, and never/always (−∞/+∞). */
export function routingThresholds(margins: ReadonlyMap<string, number>, trained: number): number[] {
  const m = [...margins.values()].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const q = (p: number) => (m.length === 0 ? 0 : m[Math.min(m.length - 1, Math.floor(p * m.length))]);
  const out = new Set<number>([-Infinity, trained, Infinity]);
  for (let i = 1; i < 10; i++) out.add(q(i / 10));
  return [...out].sort((a, b) => a - b);
}

/** One generated line on a routing threshold: its tool-call rate and MAP/MRR against never and always calling tools. */
export function routingVerdict(rows: readonly RoutingSweepRow[], threshold: number, trained: number): string {
  const at = rows.find((r) => r.threshold === threshold);
  const never = rows.find((r) => r.threshold === -Infinity);
  const always = rows.find((r) => r.threshold === Infinity);
  if (!at || !never || !always) return '_threshold not in the sweep_';
  const best = rows.reduce((a, r) => (r.MAP > a.MAP ? r : a), rows[0]);
  return [
    `- Threshold τ = ${Number.isFinite(threshold) ? threshold.toFixed(3) : threshold > 0 ? '+∞' : '−∞'}${threshold === trained ? ' (the trained one)' : ''}: tool-call rate **${(at['tool-call rate'] * 100).toFixed(1)}%**, MAP ${f3(at.MAP)} (${signed(at.MAP - never.MAP)} vs never calling tools, ${signed(at.MAP - always.MAP)} vs always), MRR ${f3(at.MRR)}.`,
    `- Over the sweep, the best MAP is ${f3(best.MAP)} at a tool-call rate of ${(best['tool-call rate'] * 100).toFixed(1)}%.`,
    `- The paper reports tool-call rates of ${(PAPER_RERANK_ROWS.filter((r) => r.toolCallRate !== undefined).map((r) => `${(r.toolCallRate! * 100).toFixed(1)}% (${r.name})`).join(', '))} for its LLM agents, which decide by themselves.`,
  ].join('\n');
}

/**
 * The gain of tool routing over the same offline reranker without tools, and the leakage guard's effect, in words:
 * each paired difference with its CI, p, and where the bootstrap and the randomization test disagree, which says what.
 */
export function routingGainVerdict(routedVsOffline: readonly PairedComparison[], guardEffect: readonly PairedComparison[]): string {
  const line = (cs: readonly PairedComparison[]) => ['MAP', 'MRR'].map((m) => gainSentence(m, cs.find((c) => c.metric === m))).join('; ');
  return [
    `- **Tool routing** (routed − the offline reranker without tools): ${line(routedVsOffline)}.`,
    `- **Leakage guard** (tools without the guard − with it; a positive difference is leaked gain): ${line(guardEffect)}.`,
  ].join('\n');
}
