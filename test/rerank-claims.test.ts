// The claim checks of notebooks 06 and 07 on cases the sample run does not reach: a routing gain whose bootstrap CI
// and randomization p disagree (the full snapshot's case), a position-biased reranker, and LLM rows in the cost table.
// Each sentence comes from the generator the notebook uses, so the check passes on it and catches its falsified copy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  positionBiasProblems, positionBiasVerdict, rerankCostProblems, rerankCostVerdict, routingGainProblems, routingGainVerdict,
} from '../lib/lessons';
import { positionBiasRows, type PositionBias } from '../lib/study';
import type { PairedComparison } from '../lib/metrics';

const paired = (diff: number, lo: number, hi: number, p: number) => ({ metric: 'MAP', meanDiff: diff, ciLow: lo, ciHigh: hi, pValue: p }) as unknown as PairedComparison;

test('07 routing gain: where the CI excludes 0 but p ≥ .05 the sentence says the tests disagree, and the check needs it', () => {
  const routed = [paired(0.021, 0.002, 0.041, 0.062), { ...paired(0.01, -0.01, 0.03, 0.3), metric: 'MRR' }];
  const guard = [paired(0, 0, 0, 1), { ...paired(0, 0, 0, 1), metric: 'MRR' }];
  const text = routingGainVerdict(routed, guard);
  assert.match(text, /two tests disagree/);
  const results = { shownText: [text], offlineRouting: { routedVsOffline: routed, guardEffect: guard } };
  assert.equal(routingGainProblems(results), []);
  const silent = { ...results, shownText: [text.replace(/ — \*\*the two tests disagree[^*]*\*\*/, '')] };
  assert.ok(routingGainProblems(silent).some((p) => /disagree but the sentence does not say so/.test(p)), 'a sentence that hides the disagreement is caught');
  const agreeing = { ...results, offlineRouting: { routedVsOffline: [paired(0.021, 0.002, 0.041, 0.01), routed[1]], guardEffect: guard } };
  assert.ok(routingGainProblems(agreeing).some((p) => /agree but the sentence says they disagree/.test(p)), 'a disagreement the table does not have is caught');
});

test('06 position bias: τ < 1 in some pair of shuffles is "position-biased", and the check re-derives it from the table row', () => {
  const spread = (mean: number, min: number) => ({ mean, sd: 0.1, min, max: 1 });
  const bias = {
    reranker: 'LLM rerank (m)', shuffles: 5, seeds: [42, 43, 44, 45, 46], window: 10, tau: spread(0.8, 0.4), map: spread(0.5, 0.4), mrr: spread(0.6, 0.5), runs: [],
    aggregated: { run: new Map(), row: { system: 's', 'R@10': 0.5, 'R@20': 0.5, 'R@100': 0.5, MAP: 0.5123, MRR: 0.6123 } }, cost: { calls: 60, inputTokens: 12000, outputTokens: 400, costUsd: 0.1 },
  } as unknown as PositionBias;
  const text = positionBiasVerdict([bias]);
  assert.match(text, /\*\*position-biased\*\*/);
  assert.match(text, /for 60 LLM calls and 12,400 tokens/);
  const results = { shownText: [text], positionBias: positionBiasRows([bias]) };
  assert.equal(positionBiasProblems(results), []);
  const unbiased = { ...results, shownText: [text.replace('**position-biased**: the order of presentation moves its ranking', 'the same order in every shuffle, **no position bias**')] };
  assert.ok(positionBiasProblems(unbiased).length > 0, '"no position bias" with τ min 0.4 is caught');
});

test('06 cost per query: the rerankers that call an LLM, the most calls and the highest cost, against the cost table', () => {
  const outcome = (label: string, calls: number, usd: number) => ({ label, summary: { callsPerQuery: calls, costPerQueryUsd: usd } }) as never;
  const outcomes = [outcome('offline', 0, 0), outcome('LLM a', 1, 0.002), outcome('LLM b', 2.5, 0.001)];
  const text = rerankCostVerdict(outcomes);
  assert.match(text, /^2 of 3 rerankers call an LLM; the most calls per query: 2\.50 \(LLM b\); the highest cost per query: \$0\.00200 \(LLM a\)\.$/);
  const cost = [{ system: 'offline', callsPerQuery: 0, costPerQueryUsd: 0 }, { system: 'LLM a', callsPerQuery: 1, costPerQueryUsd: 0.002 }, { system: 'LLM b', callsPerQuery: 2.5, costPerQueryUsd: 0.001 }];
  assert.equal(rerankCostProblems({ shownText: [text], cost }), []);
  assert.ok(rerankCostProblems({ shownText: [text], cost: cost.map((c) => ({ ...c, callsPerQuery: c.system === 'LLM a' ? 3 : c.callsPerQuery })) }).length > 0);
});

test.run();
