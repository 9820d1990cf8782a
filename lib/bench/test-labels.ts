/**
 * Every dataset a test query of either benchmark labels (any grade): the title benchmark's TEST split and the style
 * benchmark's TEST half (`styleTestLabelIds`). The one answer to "what must no generated training query have as a
 * positive": the adaptive α's corpus-made queries, NN-SSC's user-style queries and corpus pairs, the fine-tuned
 * encoder's corpus pairs and the static encoder's pairs all leave these out.
 */
import type { Corpus } from '../data/types';
import { buildStyleBenchmark, styleTestLabelIds } from './styles/build';
import type { BenchSplitView } from './types';

/** The ids (title test labels, then style test labels) and the hash of the style topics read. */
export function testLabelIds(corpus: Corpus, titleTest: Pick<BenchSplitView, 'qrels'>): { ids: Set<string>; styleTopicsHash: string } {
  const ids = new Set<string>();
  for (const m of titleTest.qrels.values()) for (const id of m.keys()) ids.add(id);
  const styles = buildStyleBenchmark(corpus);
  for (const id of styleTestLabelIds(styles)) ids.add(id);
  return { ids, styleTopicsHash: styles.topicsHash };
}
