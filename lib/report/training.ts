import type { Corpus } from '../data/types';
import type { PerQueryMetrics, MetricName } from '../metrics/types';
import type { FinetunedEncoderArtefact, FinetuneTrainingSummary, NnsscArtefact, NnsscTrainingSummary } from '../train/artefacts';
import type { FinetuneStep, FinetuneValidation } from '../train/finetune';
import type { NnsscEpochLog } from '../train/nnssc';
import { scatterFigure } from './figures';
import type { Figure } from './types';
import { repoRelativePath } from '../util/paths';

/**
 * A configuration as table rows `{ setting, value }`, or `{ setting, "this run", <referenceLabel> }` beside a
 * reference configuration (e.g. the paper's), one row per key of the reference (default: of the config).
 */
export function settingRows(config: object, reference?: { config: object; label: string }): Record<string, string>[] {
  const c = config as Record<string, unknown>;
  if (!reference) return Object.entries(c).map(([setting, v]) => ({ setting, value: String(v) }));
  const r = reference.config as Record<string, unknown>;
  return Object.keys(r).map((setting) => ({ setting, 'this run': String(c[setting]), [reference.label]: String(r[setting]) }));
}

/** Rows of a query's positives and hard negatives (first `positives` and `negatives` of each), for a display. */
export function hardNegativeRows(corpus: Corpus, positives: readonly number[], negatives: readonly number[], shown = { positives: 3, negatives: 5 }) {
  const row = (role: string, i: number) => ({ role, shortName: corpus.datasets[i].shortName, title: corpus.datasets[i].longName.slice(0, 90) });
  return [...positives.slice(0, shown.positives).map((i) => row('positive', i)), ...negatives.slice(0, shown.negatives).map((i) => row('hard negative', i))];
}

const fixed = (x: number | null | undefined, d = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));

/** One line per NN-SSC epoch: losses, validation MAP/MRR, seconds, and a star on the best epoch so far. */
export function nnsscEpochLine(l: NnsscEpochLog, maxEpochs?: number): string {
  return `epoch ${l.epoch}${maxEpochs ? `/${maxEpochs}` : ''}: train loss ${fixed(l.trainLoss)}  val loss ${fixed(l.valLoss)}  val MAP ${fixed(l.valMAP)}  MRR ${fixed(l.valMRR)}  ${l.seconds.toFixed(1)} s${l.best ? '  * best' : ''}`;
}

/** What `loadOrTrainNnssc` did, in one line: trained (backend, time, epochs, stopping reason) or reused. */
export function nnsscTrainingLine(nn: NnsscArtefact): string {
  const s = nn.summary;
  const what = `${s.curve.length} epochs, best epoch ${s.bestEpoch} (${s.stoppedBecause}); ${s.trainQueries} training / ${s.valQueries} validation queries, ${s.positivesPerSecond.toFixed(0)} positives/s`;
  return nn.trained
    ? `trained on tfjs backend "${s.backend}" in ${s.wallSeconds.toFixed(0)} s (${nn.why}): ${what}; saved to ${repoRelativePath(nn.dir)}`
    : `reusing ${repoRelativePath(nn.dir)}, trained ${nn.checkpoint.created} on "${s.backend}" in ${s.wallSeconds.toFixed(0)} s on training data ${nn.trainingData.hash}: ${what}`;
}

/** NN-SSC learning curves: loss (train, validation) per epoch, and validation MAP/MRR with the best epoch marked (null without validation). */
export function nnsscLearningCurveFigures(s: NnsscTrainingSummary): { loss: Figure; validation: Figure | null } {
  const ep = s.curve.map((l) => l.epoch);
  const hasVal = s.curve.length > 0 && s.curve[0].valMAP !== null;
  const loss = scatterFigure([
    { x: ep, y: s.curve.map((l) => l.trainLoss), name: 'train loss (Eq. 5)', mode: 'lines+markers' },
    ...(hasVal ? [{ x: ep, y: s.curve.map((l) => l.valLoss ?? NaN), name: 'validation loss', mode: 'lines+markers' as const }] : []),
  ], { title: `NN-SSC learning curve (backend ${s.backend})`, xTitle: 'epoch', yTitle: 'loss' });
  const validation = hasVal
    ? scatterFigure([
        { x: ep, y: s.curve.map((l) => l.valMAP ?? NaN), name: 'validation MAP', mode: 'lines+markers' },
        { x: ep, y: s.curve.map((l) => l.valMRR ?? NaN), name: 'validation MRR', mode: 'lines+markers' },
      ], {
        title: `Validation (held-out training publications), best epoch ${s.bestEpoch}`, xTitle: 'epoch', yTitle: 'full-corpus metric',
        layout: { shapes: [{ type: 'line', x0: s.bestEpoch, x1: s.bestEpoch, yref: 'paper', y0: 0, y1: 1, line: { dash: 'dot', color: '#999' } }] },
      })
    : null;
  return { loss, validation };
}

/** One line per fine-tuning step. */
export function finetuneStepLine(s: FinetuneStep): string {
  return `step ${s.step} (epoch ${s.epoch}): loss ${s.loss.toFixed(4)}  lr ${s.lr.toExponential(2)}  ${s.seconds.toFixed(1)} s`;
}

/** One line per fine-tuning validation. */
export function finetuneValidationLine(v: FinetuneValidation): string {
  return `  validation after step ${v.step}: MRR ${v.mrr.toFixed(4)}, R@10 ${v.recall10.toFixed(4)} (${v.queries} queries, pool ${v.pool})`;
}

/** What `loadOrTrainFinetunedEncoder` did, in one line. */
export function finetuneTrainingLine(ft: FinetunedEncoderArtefact): string {
  const s = ft.summary;
  return ft.trained
    ? `trained ${s.trainableParams.toLocaleString()} parameters (${ft.trained.trainableWeights.length} weight tensors, scope "${ft.trained.scope}") on "${s.backend}" (${ft.why}): ` +
        `${s.steps.length} steps, ${s.pairsSeen} pairs, ${s.wallSeconds.toFixed(0)} s (stopped by ${s.stoppedBy}); encoder ${ft.encoder.id}`
    : `reusing ${repoRelativePath(ft.dir)} (trained on "${s.backend}" in ${s.wallSeconds.toFixed(0)} s on training data ${ft.trainingData.hash}); encoder ${ft.encoder.id}`;
}

/** Fine-tuning learning curve: MNRL loss per step. */
export function finetuneLearningCurveFigure(s: FinetuneTrainingSummary): Figure {
  return scatterFigure([{ x: s.steps.map((x) => x.step), y: s.steps.map((x) => x.loss), name: 'train loss (MNRL)', mode: 'lines+markers' }],
    { title: `Learning curve (backend ${s.backend})`, xTitle: 'step', yTitle: 'loss' });
}

/** Fine-tuning validation rows (held-out training publications). */
export function finetuneValidationRows(s: FinetuneTrainingSummary) {
  return s.validation.map((v) => ({ step: v.step, 'val MRR': v.mrr, 'val R@10': v.recall10, queries: v.queries, pool: v.pool }));
}

/**
 * Per-query scatter of one metric for two systems evaluated on the same queries (default reciprocal rank), with
 * the diagonal dotted and each point's hover text (e.g. the query).
 */
export function perQueryScatterFigure(
  a: PerQueryMetrics, b: PerQueryMetrics, opts: { xTitle: string; yTitle: string; metric?: MetricName; text?: (queryId: string) => string; title?: string },
): Figure {
  const metric = opts.metric ?? 'MRR';
  return scatterFigure({ x: a.values[metric], y: b.values[metric], ...(opts.text ? { text: a.queryIds.map(opts.text) } : {}) }, {
    title: opts.title ?? (metric === 'MRR' ? 'Reciprocal rank per test query' : `${metric} per test query`), xTitle: opts.xTitle, yTitle: opts.yTitle,
    layout: { shapes: [{ type: 'line', x0: 0, y0: 0, x1: 1, y1: 1, line: { dash: 'dot', color: '#999' } }] },
  });
}
