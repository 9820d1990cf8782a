/**
 * The keys of notebook 05's generated sentences (`showMarkdown`'s `key`), one per sentence of a step, for every step
 * of the notebook in one place: results.json lists keyed sentences by key (lib/report/shown-text.ts), so the keys'
 * order is the notebook's order, and a re-run step replaces its sentence.
 */
export const FUSION_TEXT_KEYS = Object.freeze({
  sampleNote: '05.01 sample note',
  alpha: '05.03a α verdict',
  alphaCurve: '05.03b α curve figure',
  table2: '05.04a table 2 verdict',
  vsBm25Stop: '05.04b every row vs BM25-stop',
  holm: '05.05a Holm note',
  selfSupervised: '05.05b self-supervised rows',
  tryItCaption: '05.06a try it figure',
  tryIt: '05.06b try it verdict',
  gainsCaption: '05.07a per-query gains figure',
  gains: '05.07b per-query gains verdict',
  scoreGeometry: '05.08 score geometry figure',
  ablation: '05.09a ablation verdict',
  seedSpread: '05.09b seed spread',
  seedTable: '05.09c seed table',
  styleTuningLog: '05.10 style tuning log',
  learnedRerank: '05.11a learned reranker',
  rankingVsBm25: '05.11b default ranking vs BM25',
  rankingVsBm25Stop: '05.11c default ranking vs BM25-stop',
  rankingVsBefore: '05.11d default ranking vs before',
  discussion: '05.12 discussion',
});
