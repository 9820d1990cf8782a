import type { Corpus } from '../data/types';
import type { RunEntry } from '../metrics/types';
import type { BenchSplitView } from '../bench/types';
import { sortRunEntries } from '../metrics/rank';
import { showTable } from './display';
import type { Run } from '../metrics/types';
import type { TableSource } from './types';

/** Table rows for the top of a ranked list, relevant datasets marked (for "top results" displays). */
export function rankedDatasetRows(corpus: Corpus, entries: readonly RunEntry[], relevant: ReadonlySet<string> | Map<string, number>, k = 10) {
  const isRel = (id: string) => (relevant instanceof Map ? (relevant.get(id) ?? 0) > 0 : relevant.has(id));
  return sortRunEntries(entries, k).map((e, i) => {
    const d = corpus.datasets[corpus.indexById.get(e.docId)!];
    return {
      rank: i + 1,
      relevant: isRel(e.docId) ? '✓' : '',
      id: e.docId,
      shortName: d?.shortName ?? '',
      title: d ? (d.longName.length > 90 ? d.longName.slice(0, 87) + '…' : d.longName) : '',
      score: e.score,
    };
  });
}

/**
 * "What the rankings look like": for each of the first `queries` queries of a split (default 3), the top `k` (default
 * 5) of each system's run as a table, right answers marked ✓.
 */
export function showTopResults(input: { corpus: Corpus; split: Pick<BenchSplitView, 'queries' | 'qrels'>; systems: readonly { label: string; run: Run }[]; queries?: number; k?: number; source?: TableSource }): void {
  for (const q of input.split.queries.slice(0, input.queries ?? 3)) {
    const relevant = input.split.qrels.get(q.id)!;
    for (const s of input.systems)
      showTable(rankedDatasetRows(input.corpus, s.run.get(q.id)!, relevant, input.k ?? 5), { title: `${s.label} — "${q.text}"`, digits: 3, ...(input.source ? { source: input.source } : {}) });
  }
}
