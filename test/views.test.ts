// The tables and figures the notebooks show are library functions: each computes what a notebook cell used to.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSnapshot, type MetricRow } from '../lib';
import { buildBenchmark, benchmarkSettings, benchmarkStats } from '../lib/bench';
import { settingRows, perQueryScatterFigure } from '../lib/report';
import { rerankGainPerQuery, toolCallsPerQuery, rerankSystemRuns } from '../lib/rerank';
import {
  hardNegativeRows, nnsscEpochLine, nnsscLearningCurveFigures,
  benchmarkSizeRows, splitBalanceRows, splitBalanceFigure, benchmarkQueryRows, positivesPerQueryFigure, datasetsPerDaacFigure,
  backboneRows, offlineWeightRows, distinctOutcomes, distinctMetricRows, repairRows, guardRemovalRows, firstToolTrace, rerankerLabel
} from '../lib/lessons';
import { emptyRepairs } from '../lib/rerank';
import type { PerQueryMetrics } from '../lib/metrics';

const corpus = loadSnapshot({ sample: true });

const row = (system: string, v: number[]): MetricRow => ({ system, 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] });
const perQuery = (ids: string[], mrr: number[]): PerQueryMetrics => ({
  queryIds: ids, values: { 'R@10': mrr, 'R@20': mrr, 'R@100': mrr, MAP: mrr, MRR: mrr }, skippedNoPositives: [], missingFromRun: [],
});
const trace = (queryId: string, tools: number[]) => ({
  reranker: 'r', queryId, windowStart: 0, windowSize: 10, calls: 0, toolCalls: tools.map((removed, i) => ({ name: `t${i}`, arguments: { q: queryId }, resultDigest: 'd', results: 3, removedByGuard: removed, latencyMs: 1 })),
  inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0, repairs: emptyRepairs(), ranked: [1], notes: [],
});
function outcome(backbone: string, reranker: string, ids: string[], mrr: number[], traces: Record<string, number[][]> = {}) {
  const t = new Map(ids.map((q) => [q, (traces[q] ?? [[]]).map((tools) => trace(q, tools))]));
  const toolCalls = [...t.values()].flat().reduce((s, x) => s + x.toolCalls.length, 0);
  const removals = [...t.values()].flat().reduce((s, x) => s + x.toolCalls.reduce((a, c) => a + c.removedByGuard, 0), 0);
  return {
    backbone, reranker, label: `B ${backbone} + R ${reranker}`, kind: 'offline' as const, row: row(`B ${backbone} + R ${reranker}`, [0, 0, 0, 0, 0]),
    perQuery: perQuery(ids, mrr), reranked: { run: new Map(ids.map((q) => [q, [{ docId: 'd1', score: 1 }]])), traces: t },
    summary: { queries: ids.length, windows: ids.length, failedWindows: 2, repairs: { ...emptyRepairs(), failed: 9, duplicates: 1 }, toolCalls, guardRemovals: removals, queriesWithGuardRemovals: 0 },
    gain: [],
  };
}

test('benchmark views: size rows, split balance, query rows and figures come from the stats', async () => {
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const stats = benchmarkStats(bench, corpus);
  const size = benchmarkSizeRows(stats);
  assert.is(size.find((r) => r.what === 'queries')!.value, bench.queries.length);
  assert.is(size.find((r) => r.what === 'train queries')!.value, bench.queries.filter((q) => q.split === 'train').length);
  assert.ok(size.some((r) => r.what === 'labels with relation cites'));
  const balance = splitBalanceRows(stats);
  assert.is(balance.reduce((s, r) => s + r.train + r.test, 0), stats.publications);
  assert.equal(splitBalanceFigure(stats).data.map((t) => t.name), ['train', 'test']);
  const qs = benchmarkQueryRows(bench, 'test', 3);
  assert.is(qs.length, 3);
  assert.equal(qs.map((r) => r.query), bench.queries.filter((q) => q.split === 'test').slice(0, 3).map((q) => q.text));
  const hist = positivesPerQueryFigure(bench, 5).data[0].x as number[];
  assert.is(Math.max(...hist), Math.min(5, Math.max(...bench.queries.map((q) => q.positives))));
  const daac = datasetsPerDaacFigure(stats).data[0];
  const counts = daac.y as number[];
  assert.equal(counts, [...counts].sort((a, b) => b - a), 'DAACs ordered by corpus size');
});

test('training views: setting rows (with a reference), hard-negative rows, epoch lines, learning curves, per-query scatter', () => {
  // an unset limit (maxSteps, timeBudgetSec) reads as "none", never as a raw null (issue 44: 03 printed "null")
  assert.equal(settingRows({ a: 1, b: null }), [{ setting: 'a', value: '1' }, { setting: 'b', value: 'none' }]);
  assert.equal(settingRows({ a: 1, b: null }, { config: { b: 5, a: undefined }, label: 'paper' }), [{ setting: 'b', 'this run': 'none', paper: '5' }, { setting: 'a', 'this run': '1', paper: 'none' }]);
  assert.equal(settingRows({ a: 1, b: 2, c: 3 }, { config: { b: 5, a: 4 }, label: 'paper' }), [
    { setting: 'b', 'this run': '2', paper: '5' }, { setting: 'a', 'this run': '1', paper: '4' },
  ]);
  const rows = hardNegativeRows(corpus, [0, 1, 2, 3], [4, 5], { positives: 2, negatives: 1 });
  assert.equal(rows.map((r) => r.role), ['positive', 'positive', 'hard negative']);
  assert.is(rows[2].title, corpus.datasets[4].longName.slice(0, 90));
  const log = { epoch: 3, trainLoss: 1.23456, valLoss: null, valMAP: 0.5, valMRR: 0.25, best: true, seconds: 7.04 };
  assert.is(nnsscEpochLine(log, 60), 'epoch 3/60: train loss 1.2346  val loss n/a  val MAP 0.5000  MRR 0.2500  7.0 s  * best');
  const summary = { curve: [log, { ...log, epoch: 4, best: false }], bestEpoch: 3, stoppedBecause: 'early stopping' as const, backend: 'wasm', wallSeconds: 1, positivesPerSecond: 1, trainQueries: 1, valQueries: 1, trainableParams: 1 };
  const figs = nnsscLearningCurveFigures(summary);
  assert.equal(figs.loss.data[0].y, [1.23456, 1.23456]);
  assert.ok(figs.validation);
  assert.is(nnsscLearningCurveFigures({ ...summary, curve: summary.curve.map((c) => ({ ...c, valMAP: null, valMRR: null })) }).validation, null);
  const sc = perQueryScatterFigure(perQuery(['q1', 'q2'], [1, 0.5]), perQuery(['q1', 'q2'], [0.2, 0]), { xTitle: 'A', yTitle: 'B', text: (q) => `text ${q}` });
  assert.equal(sc.data[0].x, [1, 0.5]);
  assert.equal(sc.data[0].y, [0.2, 0]);
  assert.equal(sc.data[0].text, ['text q1', 'text q2']);
});

test('rerank views: backbone π, offline weights, distinct outcomes and rows, gains, guard removals, run files', () => {
  const lists = [{ query: { id: 'q1', text: 'x', publicationId: 'p' }, candidates: [] }];
  const weak = { id: 'weak', label: 'W', alpha: 0.4, lists, trainLists: [], alphaFrom: { semantic: row('s', [0.1, 0.2, 0.3, 0.4, 0.5]), lexical: row('l', [1, 1, 1, 1, 0]) } };
  const standIn = { ...weak, id: 'strong', label: 'W [stand-in]' };
  const b = backboneRows([weak]);
  assert.ok(Math.abs(b[0]['π semantic (train)'] - 0.3) < 1e-12);
  assert.ok(Math.abs(b[0]['π BM25 (train)'] - 0.8) < 1e-12);
  const model = (w: number[]) => ({ model: { features: ['f1', 'f2'], weights: w }, priors: {}, window: 10, trainQueries: 1 });
  assert.equal(offlineWeightRows({ weak: model([1, 2]), strong: model([3, 4]) } as never), [
    { feature: 'f1', 'weight (weak)': 1, 'weight (strong)': 3 }, { feature: 'f2', 'weight (weak)': 2, 'weight (strong)': 4 },
  ]);
  const a1 = outcome('weak', 'r1', ['q1', 'q2'], [1, 0.5], { q2: [[0, 2], [1]] });
  const a2 = outcome('weak', 'r2', ['q1', 'q2'], [0.5, 0.5]);
  const dup = { ...outcome('weak', 'r1', ['q1', 'q2'], [0, 0]), label: 'later copy' };
  const t1 = { backbones: [{ id: 'weak', label: 'B weak', row: row('B weak', [1, 1, 1, 1, 1]), perQuery: perQuery(['q1', 'q2'], [0.5, 0.5]) }], outcomes: [a1], errors: [] };
  const t2 = { backbones: t1.backbones, outcomes: [dup, a2], errors: [] };
  assert.equal(distinctOutcomes(t1 as never, t2 as never).map((o) => o.label), [a1.label, a2.label]);
  assert.equal(distinctMetricRows(t1 as never, t2 as never).map((r) => r.system), ['B weak', a1.row.system, a2.row.system]);
  assert.equal(rerankGainPerQuery(a1, t1.backbones[0].perQuery), [0.5, 0]);
  assert.is(rerankerLabel(a1, 'B weak'), 'R r1');
  const rep = repairRows([a1 as never])[0];
  assert.is(rep['failed windows'], 2, 'failed windows not overwritten by the repair kind "failed"');
  assert.is(rep.failed, 9);
  assert.equal(toolCallsPerQuery(a1), [0, 3]);
  assert.is(guardRemovalRows([a1 as never])[0]['max removals in one query'], 3);
  const first = firstToolTrace(a1.reranked as never)!;
  assert.is(first.queryId, 'q2');
  assert.is(first.trace.toolCalls.length, 2);
  assert.is(firstToolTrace(a2.reranked as never), null);
  const runs = rerankSystemRuns([weak, standIn] as never, [{ ...a2, reranker: 'llm:gpt/4o' }] as never);
  assert.equal(runs.map((r) => r.id), ['weak', 'strong', 'weak-llm_gpt_4o'], 'a stand-in backbone with the same lists keeps its row; ids are file-safe');
  assert.equal(runs.map((r) => r.label), ['W', 'W [stand-in]', a2.label]);
  assert.is(runs[1].run, runs[0].run, 'the same lists: one run object, built once');
});

test.run();
