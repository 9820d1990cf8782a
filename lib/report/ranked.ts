import type { Corpus } from '../data/types';
import type { RunEntry } from '../metrics/types';
import { sortRunEntries } from '../metrics/rank';

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
