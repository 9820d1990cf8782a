import type { MetricRow } from '../metrics/types';
import type { BackboneList } from './compose';

/**
 * A retrieval backbone ready for reranking: per query, its top `depth` candidates with their scores. Built by the
 * search path (`buildHybridBackbone` in lib/study), so reranking starts from exactly what search returns.
 */
export interface Backbone {
  /** One word (run tag), e.g. `weak` / `strong`. */
  id: string;
  label: string;
  /** Fusion weight of the semantic scorer (analytic α from the training split). */
  alpha: number;
  /** Lists of the evaluated queries (e.g. the test subset). */
  lists: BackboneList[];
  /** Lists of the training queries (to train offline rerankers); empty when not requested. */
  trainLists: BackboneList[];
  /** Training-split metrics of the two scorers that gave α. */
  alphaFrom: { semantic: MetricRow; lexical: MetricRow };
  /** Where α comes from (its fusion record). Default: not said. */
  alphaSource?: string;
}

