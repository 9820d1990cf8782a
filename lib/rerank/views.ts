// Per-query views of rerank outcomes that other stages use (the judge columns, the audits). The notebooks' display
// rows (backbones, weights, repairs, cost, tool use) live in lib/lessons/06-llm-rerank.
import { sortRunEntries } from '../metrics/rank';
import { RUN_PARTS_TOP_K, runScoreParts, setRunScoreParts, type RunPartsTable, type RunScoreParts } from '../metrics/run-parts';
import type { SystemRun } from '../metrics/systems';
import type { PerQueryMetrics } from '../metrics/types';
import type { Backbone } from './candidate-lists';
import { runFromLists } from './compose';
import type { RerankOutcome } from './evaluate';

/** Per-query difference of one metric, reranked − backbone (queries aligned, as `rerankTable` evaluates them). */
export function rerankGainPerQuery(o: Pick<RerankOutcome, 'perQuery'>, backbone: PerQueryMetrics, metric: keyof PerQueryMetrics['values'] = 'MRR'): number[] {
  return o.perQuery.values[metric].map((v, i) => v - backbone.values[metric][i]);
}

/** Tool calls of each query (aligned with `perQuery.queryIds`). */
export function toolCallsPerQuery(o: Pick<RerankOutcome, 'perQuery' | 'reranked'>): number[] {
  return o.perQuery.queryIds.map((q) => (o.reranked.traces.get(q) ?? []).reduce((s, t) => s + t.toolCalls.length, 0));
}

/**
 * The runs of a rerank table's systems (TREC files, judge columns): every backbone, then every outcome (ids made
 * file-safe). A backbone whose lists are another's (a stand-in) keeps its own row and label, with the same run
 * object: dropping it left its row "not judged" and moved the table's P@K columns.
 */
export function rerankSystemRuns(backbones: readonly Backbone[], outcomes: readonly RerankOutcome[], outcomeId: (o: RerankOutcome) => string = (o) => `${o.backbone}-${o.reranker}`): SystemRun[] {
  const byLists = new Map<Backbone['lists'], SystemRun['run']>();
  const runs: SystemRun[] = [];
  for (const b of backbones) {
    if (runs.some((r) => r.label === b.label)) continue; // the same backbone passed twice
    let run = byLists.get(b.lists);
    if (!run) {
      run = runFromLists(b.lists);
      setRunScoreParts(run, backboneRunParts(run, b, false));
      byLists.set(b.lists, run);
    }
    runs.push({ id: b.id.replace(/[^A-Za-z0-9_.-]/g, '_'), label: b.label, run });
  }
  for (const o of outcomes) {
    const b = backbones.find((x) => x.id === o.backbone);
    // the reranked run's parts are its backbone's (raw scores, α) and where the backbone had each dataset
    if (b && !runScoreParts(o.reranked.run)) setRunScoreParts(o.reranked.run, backboneRunParts(o.reranked.run, b, true));
    runs.push({ id: outcomeId(o).replace(/[^A-Za-z0-9_.-]/g, '_'), label: o.label, run: o.reranked.run });
  }
  return runs;
}

/** Parts of a run's top results from its backbone's candidate lists: the scorers' raw scores, α and (reranked) the retrieval rank. */
function backboneRunParts(run: SystemRun['run'], b: Backbone, reranked: boolean): RunPartsTable {
  const table: RunPartsTable = {};
  for (const l of b.lists) {
    const byId = new Map(l.candidates.map((c) => [c.id, c]));
    const parts: Record<string, RunScoreParts> = {};
    for (const e of sortRunEntries(run.get(l.query.id) ?? [], RUN_PARTS_TOP_K)) {
      const c = byId.get(e.docId);
      if (!c) continue;
      parts[e.docId] = {
        ...(c.scores.bm25 !== undefined ? { bm25Raw: c.scores.bm25 } : {}), ...(c.scores.semantic !== undefined ? { semanticRaw: c.scores.semantic } : {}),
        alpha: b.alpha, ...(reranked ? { retrievalRank: c.retrievalRank } : {}),
      };
    }
    table[l.query.id] = parts;
  }
  return table;
}
