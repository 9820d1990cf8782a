// The teaching views of notebooks 00, 01, 02 and 08 (lib/report/tour.ts, benchmark.ts, try-it.ts, router.ts,
// paper-scale.ts): the rows they compute and the text they generate from the numbers. Each assertion checks a
// number or a choice the text must make (which row wins, which stage needs a GPU), so a wrong computation fails.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  paperScaleMissing, paperScaleRows, paperScaleVerdict, readPaperScale, type PaperScale,
} from '../lib/lessons';
import {
  benchmarkVerdict, benchmarkVsPaperRows, splitKnobVerdict, daacVerdict, datasetsPerDaacRows, fallThroughMisses, firstRelevantRank, relevantInTop, routedSearchRows, routedSearchVerdict,
  routerLabelRows, routerScoreRows, routerSummaryRows, routerVerdict, tourPublication, tourVerdict, benchmarkScaleSentence,
  checkNotebookClaims, falsifiedClaims, shortNameSentence, knobVerdict,
} from '../lib/lessons';
import { leakageSummary } from '../lib/bench';
import { NASA_EO_BENCH, type BenchmarkStats } from '../lib/bench';
import { evaluateRouter, type LabelledRouterQuery } from '../lib/router';
import type { MetricRow } from '../lib/metrics';
import type { SearchResponse } from '../lib/search';
import { EoError } from '../lib/errors';

test('datasetsPerDaacRows counts per DAAC, largest first, ties by name; daacVerdict names the largest and its share', () => {
  const datasets = ['B', 'A', 'A', 'C', 'B', 'A', 'D'].map((daac) => ({ daac })) as never[];
  const rows = datasetsPerDaacRows({ datasets });
  assert.equal(rows.map((r) => [r.DAAC, r.datasets]), [['A', 3], ['B', 2], ['C', 1], ['D', 1]]);
  assert.ok(Math.abs(rows.reduce((s, r) => s + r.share, 0) - 1) < 1e-12);
  const text = daacVerdict(rows);
  assert.match(text, /^4 DAACs; the largest, \*\*A\*\*, holds 42\.9%/);
  assert.match(text, /top three 85\.7%/);
});

test('tourPublication picks in id order among publications with enough links, and rejects a pick out of range', () => {
  const publications = [{ id: 'p3' }, { id: 'p1' }, { id: 'p2' }, { id: 'p0' }] as never[];
  const linked = new Map([['p0', ['d1']], ['p1', ['d1', 'd2']], ['p2', ['d1', 'd2', 'd3']], ['p3', ['d4', 'd5']]]);
  assert.is(tourPublication({ publications }, linked).id, 'p1');
  assert.is(tourPublication({ publications }, linked, 2).id, 'p3');
  assert.is(tourPublication({ publications }, linked, 0, 3).id, 'p2');
  assert.throws(() => tourPublication({ publications }, linked, 3), (e: unknown) => e instanceof EoError && /\[0, 2\]/.test((e as Error).message));
});

test('firstRelevantRank and relevantInTop order ties as trec_eval does (dataset id descending)', () => {
  const entries = [{ docId: 'a', score: 1 }, { docId: 'b', score: 1 }, { docId: 'c', score: 2 }, { docId: 'd', score: 0.5 }];
  // order: c (2), b (1, id desc), a (1), d
  assert.is(firstRelevantRank(entries, new Set(['a'])), 3);
  assert.is(firstRelevantRank(entries, new Set(['b', 'a'])), 2);
  assert.is(firstRelevantRank(entries, new Set(['z'])), null);
  assert.is(relevantInTop(entries, new Set(['a', 'd']), 3), 1);
});

test('tourVerdict says which ranking reaches a right answer first, with reciprocal ranks', () => {
  const relevant = new Set(['x']);
  const text = tourVerdict({
    query: 'q', relevant, sample: true,
    rankings: [
      { label: 'BM25', entries: [{ docId: 'y', score: 3 }, { docId: 'x', score: 2 }] },
      { label: 'Cosine (base)', entries: [{ docId: 'x', score: 0.9 }] },
    ],
  });
  assert.match(text, /\*\*BM25\*\* puts the first of the 1 right answers at rank 2 \(reciprocal rank 0\.500\)/);
  assert.match(text, /\*\*Cosine \(base\)\*\* puts the first of the 1 right answers at rank 1/);
  assert.match(text, /On this one query \*\*Cosine \(base\)\*\* does better/);
  assert.match(text, /Sample snapshot/);
  // a ranking without any right answer in its (truncated) list says so with its depth
  const missed = tourVerdict({ query: 'q', relevant, sample: false, rankings: [{ label: 'Cosine (base)', entries: [{ docId: 'y', score: 1 }, { docId: 'z', score: 0.5 }] }] });
  assert.match(missed, /\*\*Cosine \(base\)\*\* has none of the 1 right answers in its top 2 \(reciprocal rank 0\.000\)/);
  assert.not.match(missed, /none ranked/);
});

function stats(over: Partial<BenchmarkStats> = {}): BenchmarkStats {
  return {
    writer: 'title', writerLabel: 'title writer', publications: 10,
    queries: { total: 10, train: 8, test: 2, testSubset: 2 }, labels: 30, labelsByRelation: { uses: 30 },
    positivesPerQuery: { '3': 10 }, positivesSummary: { min: 3, median: 3, mean: 3, max: 3 },
    splitBalance: [{ stratum: '1', train: 4, test: 1, testShare: 0.2 }, { stratum: '2-3', train: 4, test: 1, testShare: 0.2 }],
    labelledDatasetsPerDaac: {}, corpusDatasetsPerDaac: {}, distinctLabelledDatasets: 12, ...over,
  };
}

test('benchmarkVerdict reports the test share against the target, the furthest stratum and positives against NASA-EO-Bench', () => {
  const s = stats({ splitBalance: [{ stratum: '1', train: 4, test: 1, testShare: 0.2 }, { stratum: '4+', train: 2, test: 2, testShare: 0.5 }] });
  const text = benchmarkVerdict(s, { testFraction: 0.2, seed: 42, sample: false });
  assert.match(text, /8 train and 2 test queries, a test share of 20\.0% against the target 20\.0%/);
  assert.match(text, /furthest is "4\+" linked datasets at 50\.0% test \(2 of 4 publications\), a stratum too small/);
  assert.match(text, /Positives per query: median \d+, mean 3\.00, max \d+ \(ours are .*the paper notes give no per-query count/);
  assert.not.match(text, /2\.24/, 'no per-query figure is given as NASA-EO-Bench\'s: the paper notes have none');
  const rows = benchmarkVsPaperRows(s, 200);
  assert.equal(rows.find((r) => r.what === 'test queries'), { what: 'test queries', ours: 2, 'NASA-EO-Bench': 4234 });
});

test('splitKnobVerdict: the reported settings say so; other settings name the stratum that moved most', () => {
  const reported = stats();
  assert.match(splitKnobVerdict(reported, reported, { seed: 42, testFraction: 0.2, reportedSeed: 42, reportedTestFraction: 0.2 }), /are the reported settings: this is the reported split/);
  const tried = stats({ queries: { total: 10, train: 7, test: 3, testSubset: 3 }, splitBalance: [{ stratum: '1', train: 4, test: 1, testShare: 0.2 }, { stratum: '2-3', train: 3, test: 2, testShare: 0.4 }] });
  const text = splitKnobVerdict(reported, tried, { seed: 7, testFraction: 0.2, reportedSeed: 42, reportedTestFraction: 0.2 });
  assert.match(text, /Seed 7, test fraction 0\.2: 7 train \/ 3 test queries \(test share 30\.0%, reported 20\.0%/);
  assert.match(text, /moved most is "2-3" \(\+20\.0%\)/);
});

const row = (system: string, v: number[]): MetricRow => ({ system, 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] });

test('knobVerdict: at the defaults the rows must agree (and it says whether they do); otherwise metric by metric', () => {
  const reported = row('BM25', [0.5, 0.6, 0.9, 0.4, 0.45]);
  const d = { k1: 1.5, b: 0.75 };
  assert.match(knobVerdict({ reported, tried: { ...reported, system: 'BM25 (try)' }, settings: d, defaults: d }), /equals the reported \*\*BM25\*\* row on every metric/);
  assert.match(knobVerdict({ reported, tried: row('x', [0.5, 0.6, 0.9, 0.41, 0.45]), settings: d, defaults: d }), /differs from the reported one on MAP/);
  const text = knobVerdict({ reported, tried: row('x', [0.55, 0.6, 0.8, 0.4, 0.45]), settings: { k1: 0.9, b: 0.75 }, defaults: d });
  assert.match(text, /With k1 = 0\.9, b = 0\.75 \(defaults: k1 = 1\.5, b = 0\.75\)/);
  assert.match(text, /R@10 0\.550 \(\+0\.050\)/);
  assert.match(text, /R@100 0\.800 \(−0\.100\)/);
  assert.match(text, /MAP 0\.400 \(unchanged\)/);
  assert.match(text, /Up on R@10; down on R@100/);
});

const labelled: LabelledRouterQuery[] = [
  { id: 'd1', query: 'map of fires', tools: ['worldview'], fallThrough: false, reason: 'imagery', split: 'dev' },
  { id: 'd2', query: 'time series of rain', tools: ['giovanni'], fallThrough: false, reason: 'series', split: 'dev' },
  { id: 'h1', query: 'map of rain', tools: ['worldview'], fallThrough: true, reason: 'imagery', split: 'heldout' },
  { id: 'h2', query: 'soil moisture data', tools: [], fallThrough: true, reason: 'search', split: 'heldout' },
] as LabelledRouterQuery[];
// a stand-in router: maps → worldview, "time series" → giovanni; 'rain' maps are wrongly also sent to giovanni
const predict = (q: string) => ({
  tools: [...(q.includes('map') ? ['worldview' as const] : []), ...(q.includes('rain') ? ['giovanni' as const] : [])],
  fallThrough: !q.includes('map'),
});

test('router score rows, summary and verdict come from the evaluation numbers', async () => {
  const all = await evaluateRouter(labelled, predict);
  const dev = await evaluateRouter(labelled.filter((q) => q.split === 'dev'), predict);
  const heldout = await evaluateRouter(labelled.filter((q) => q.split === 'heldout'), predict);
  assert.equal(routerLabelRows(labelled).find((r) => r.tool === 'worldview'), { tool: 'worldview', queries: 2 });
  assert.equal(routerLabelRows(labelled).at(-1), { tool: '(none: plain dataset search)', queries: 1 });
  const rows = routerScoreRows({ all, dev });
  const gio = rows.find((r) => r.set === 'all' && r.tool === 'giovanni')!;
  assert.equal([gio.TP, gio.FP, gio.FN], [1, 1, 0]);
  assert.is(gio.precision, 0.5);
  assert.ok(rows.some((r) => r.set === 'dev' && r.tool === 'micro'));
  assert.equal(routerSummaryRows({ all }).map((r) => r['exact tool-set match']), [0.75]);
  const text = routerVerdict({ all, dev, heldout, msPerQuery: 0.25 });
  assert.match(text, /Best tool: \*\*worldview\*\* \(F1 1\.000, 2 queries\); weakest: \*\*giovanni\*\* \(F1 0\.667: precision 0\.500 — it fires where it should not \(1 false positives\)\)/);
  assert.match(text, /held out \(2, never used to change them\): 0\.667\. On phrasing written after the rules were frozen the micro F1 drops by 0\.333 and the exact tool-set match drops from 100\.0% to 50\.0%; the fall-through accuracy stays at 50\.0%: rules fitted/);
  assert.not.match(text, /hold up/);
  // two tools tied at the top F1 are both named, not one "best tool"
  const tied = routerVerdict({ all: { ...all, perTool: all.perTool.map((t) => (t.tool === 'giovanni' ? { ...t, f1: 1, precision: 1, fp: 0 } : t)) } });
  assert.match(tied, /Best tools, tied at F1 1\.000: \*\*[a-z]+\*\* \(\d+ queries\) and \*\*[a-z]+\*\*/);
  assert.ok(tied.includes('**worldview**') && tied.includes('**giovanni**'), tied);
  assert.not.match(tied, /Best tool:/);
  // held out at least as good as dev: the text says it rises, never "drops"
  const up = routerVerdict({ all, dev: heldout, heldout: dev });
  assert.match(up, /micro F1 rises by 0\.333/);
  assert.match(text, /0\.25 ms per query/);
  const misses = await fallThroughMisses(labelled, predict);
  assert.equal(misses.map((m) => m.id), ['d2', 'h1']); // d2: no map, so predicted to fall through; h1: a map, predicted not to
});

test('routedSearchRows / routedSearchVerdict show the applied decisions, actions and the top dataset\'s stage', () => {
  const res = {
    query: 'rain over Kenya', k: 2, retrievalQuery: 'rain over Kenya',
    router: {
      router: 'rules', fallThrough: true, notes: [], parsed: {} as never,
      decisions: [
        { tool: 'giovanni', applies: true, confidence: 0.8, fullyAnswers: false, rule: 'giovanni.series', evidence: [{ kind: 'intent', detail: 'intent series' }] },
        { tool: 'worldview', applies: false, confidence: 0.1, fullyAnswers: false, rule: 'worldview.none', evidence: [] },
      ],
      actions: [{ tool: 'giovanni', label: 'g', url: 'https://giovanni.example/x', method: 'GET', rule: 'giovanni.link', provenance: { v: 1 } }],
    },
    retrieval: { label: 'hybrid', lexical: 'bm25', semantic: 'use-lite', fusion: 'convex', alpha: 0.5, alphaSource: 'test' },
    results: [{ rank: 1, id: 'D1', shortName: null, longName: 'Rain data', daac: 'GES_DISC', temporal: { start: null, end: null }, score: 0.9,
      components: { lexical: { contribution: 0.7 }, semantic: { contribution: 0.2 } }, stage: 'bm25', why: '', links: {} }],
    timings: { totalMs: 12.34 },
  } as unknown as SearchResponse;
  const t = routedSearchRows(res);
  assert.equal(t.decisions.map((d) => d.tool), ['giovanni']);
  assert.is(t.actions[0].url, 'https://giovanni.example/x');
  assert.equal([t.results[0].shortName, t.results[0].bm25, t.results[0].semantic], ['D1', 0.7, 0.2]);
  const text = routedSearchVerdict(res);
  assert.match(text, /→ \*\*giovanni\*\* \(giovanni\.series, confidence 0\.80\); 1 action\(s\)\. It falls through to retrieval/);
  assert.match(text, /top dataset is D1 \(GES_DISC\), ranked there mostly by BM25\. \(12\.3 ms\)/);
});

function scaleFixture(): PaperScale {
  return {
    format: 'eo-paper-scale/1', created: '2026-11-30T20:00:00.000Z', quick: false, seed: 42,
    machine: { node: 'v20', cores: 2, cpu: 'Xeon', loadavg: [17.4, 18.5, 20.8], memoryGB: 24 },
    sizes: { measured: {}, paper: {} },
    stages: [
      { stage: 'BM25 index build', n: 8058, unit: 'datasets', seconds: 118.9, cpuSeconds: 15.2, paperSeconds: 118.9, paperSecondsIdle: 15.2, verdict: 'fits 2 cores', peakRssMB: 601 },
      { stage: 'NN-SSC epoch (batch 64×21, wasm)', n: 12, unit: 'steps', seconds: 13.4, cpuSeconds: 4.5, paperSeconds: 666000, paperSecondsIdle: 126000, paperHow: '0.2 s/step × 597 steps × 1000 epochs', verdict: 'needs a GPU (or the 60-epoch early-stopped CPU schedule)', peakRssMB: 788 },
      { stage: 'fine-tuning step', skipped: '--no-finetune' },
      { stage: 'LLM listwise rerank, 200 queries (10 models)', n: 200, unit: 'calls/model', seconds: null, paperSeconds: null, paperSecondsIdle: null, verdict: 'interactive API is fine', costUsdMin: 0.06, costUsdMax: 1.21, peakRssMB: 788 },
      { stage: 'LLM listwise rerank, 4234 queries (10 models)', n: 4234, unit: 'calls/model', seconds: null, paperSeconds: null, paperSecondsIdle: null, verdict: 'network-bound: use the provider batch API', costUsdMin: 1.26, costUsdMax: 25.54, peakRssMB: 788 },
    ],
    llm: [], wallSeconds: 900,
  };
}

test('paper-scale rows and verdict sort the stages into fits 2 cores / needs a GPU / batch API from the JSON', () => {
  const scale = scaleFixture();
  const rows = paperScaleRows(scale);
  assert.is(rows.length, 5);
  assert.equal([rows[0].wall, rows[0]['paper scale (idle estimate)'], rows[0]['peak RSS (MB)']], ['118.9 s', '15.2 s', 601]);
  assert.is(rows[1]['paper scale (idle estimate)'], '35 h');
  assert.is(rows[2].measured, 'skipped (--no-finetune)');
  assert.is(rows[4]['paper scale (as measured)'], '$1.26–$25.54 per model');
  const text = paperScaleVerdict(scale);
  assert.match(text, /\*\*Fits 2 cores at the paper's scale\*\* \(1 stages, peak RSS ≤ 601 MB\): BM25 index build ≈ 15\.2 s\./);
  assert.match(text, /\*\*Needs a GPU:\*\* NN-SSC epoch \(batch 64×21, wasm\) ≈ 35 h idle/);
  assert.match(text, /\*\*Needs a provider's batch API:\*\* LLM listwise rerank, 4234 queries \(10 models\): 4,234 calls per model, \$1\.26–\$25\.54/);
  assert.match(text, /\*\*Interactive API is enough:\*\* LLM listwise rerank, 200 queries/);
  assert.match(text, /Not measured in this run: fine-tuning step \(--no-finetune\)/);
  assert.match(text, /load average 17\.4, 18\.5, 20\.8/);
});

test('readPaperScale: null when the file is missing (the note says how to make it); a wrong format names file and field', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-scale-view-'));
  const missing = path.join(dir, 'none.json');
  assert.is(readPaperScale(missing), null);
  assert.match(paperScaleMissing(missing), /node bench\/paper-scale\.cjs --test 200/);
  const ok = path.join(dir, 'ok.json');
  fs.writeFileSync(ok, JSON.stringify(scaleFixture()));
  assert.is(readPaperScale(ok)!.stages.length, 5);
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(bad, JSON.stringify({ format: 'other', stages: [] }));
  assert.throws(() => readPaperScale(bad), (e: unknown) => e instanceof EoError && (e as Error).message.includes(bad) && /field "format"/.test((e as Error).message));
  fs.writeFileSync(bad, '{not json');
  assert.throws(() => readPaperScale(bad), (e: unknown) => e instanceof EoError && /not JSON/.test((e as Error).message));
});


test('benchmarkScaleSentence compares corpus and queries with NASA-EO-Bench separately, from the counts', () => {
  const full = benchmarkScaleSentence({ datasets: 10073, queries: 1450, test: 290 }, false);
  assert.match(full, /This snapshot has 10,073 datasets, more than NASA-EO-Bench's 8,058, and 290 test queries \(1,450 in all\), fewer than its 4,234 test queries: it is not smaller in corpus but smaller in queries\./);
  assert.not.match(full, /small next to/);
  const small = benchmarkScaleSentence({ datasets: 200, queries: 60, test: 12 }, true);
  assert.match(small, /The sample snapshot has 200 datasets, fewer than NASA-EO-Bench's 8,058, and 12 test queries \(60 in all\), fewer than its 4,234 test queries: it is smaller in queries\./);
});

// The claim checks of 00, 01 and 08 on toy runs: sentences made by the verdicts pass, each falsified copy is caught,
// and the branches the sample run does not reach (no right answer ranked, one best tool, "stays") are checked too.
const caught = (nb: string, results: Record<string, unknown>) => {
  const copies = falsifiedClaims(nb, results).filter((f) => !f.covers.startsWith('paired'));
  assert.ok(copies.length >= 2, `${nb}: at least two falsified copies`);
  for (const f of copies) assert.ok(checkNotebookClaims(nb, f.results).length > 0, `${nb}: missed a falsified claim (${f.covers})`);
};

test('claim check 00: ranks as stated, "has none" only when none is ranked, the winner, the DAAC shares', () => {
  const relevant = new Set(['x', 'w']);
  const rankings = [
    { label: 'BM25', entries: [{ docId: 'y', score: 3 }, { docId: 'x', score: 2 }] },
    { label: 'Cosine (base)', entries: [{ docId: 'y', score: 0.9 }, { docId: 'z', score: 0.5 }, { docId: 'v', score: 0.1 }] },
  ];
  const datasets = ['A', 'A', 'A', 'B', 'B', 'C'].map((daac, i) => ({ daac, shortName: i < 2 ? `S${i}` : undefined })) as never[];
  const perDaac = datasetsPerDaacRows({ datasets });
  const records = rankings.map((r) => ({ label: r.label, firstRelevantRank: firstRelevantRank(r.entries, relevant), inTop10: relevantInTop(r.entries, relevant, 10), ranked: r.entries.length }));
  const results = {
    counts: { daacs: perDaac.length, datasets: 6 }, withoutShortName: 4, relevant: [...relevant], perDaac, rankings: records,
    firstRelevantRank: { bm25: records[0].firstRelevantRank, cosine: records[1].firstRelevantRank },
    shownText: [daacVerdict(perDaac), shortNameSentence({ datasets }), tourVerdict({ query: 'q', relevant, rankings, sample: false })],
  };
  assert.match(results.shownText[1], /^\*\*4\*\* of this snapshot's 6 datasets \(66\.7%\) have no shortName/);
  assert.match(results.shownText[2], /\*\*Cosine \(base\)\*\* has none of the 2 right answers in its top 3/);
  assert.equal(checkNotebookClaims('00-tour', results), []);
  caught('00-tour', results);
  // a record that ranks a right answer where the sentence says it has none
  const ranked = { ...results, rankings: records.map((r, i) => (i === 1 ? { ...r, firstRelevantRank: 3 } : r)), firstRelevantRank: { bm25: 2, cosine: 3 } };
  assert.ok(checkNotebookClaims('00-tour', ranked).some((p) => /Cosine \(base\): says it has none of the right answers; results\.json has rank 3/.test(p)));
  // "none in its top 100" when the list is 3 long
  const deeper = { ...results, rankings: records.map((r, i) => (i === 1 ? { ...r, ranked: 100 } : r)) };
  assert.ok(checkNotebookClaims('00-tour', deeper).some((p) => /none in its top 3; it ranks 100/.test(p)));
});

test('claim check 01: the snapshot vs NASA-EO-Bench (more / fewer), the split, the try-it split and the leakage count', () => {
  const s = stats({ splitBalance: [{ stratum: '1', train: 4, test: 1, testShare: 0.2 }, { stratum: '4+', train: 2, test: 2, testShare: 0.5 }] });
  const leak = { count: 1, testQueries: 2, trainQueries: 8, jaccardThreshold: 0.8, cosineThreshold: null, pairs: [] };
  const settings = { seed: 42, testFraction: 0.2, reportedSeed: 42, reportedTestFraction: 0.2 };
  const results = (datasets: number) => ({
    seed: 42, testFraction: 0.2, stats: s, vsPaper: benchmarkVsPaperRows(s, datasets),
    tryIt: { seed: 42, testFraction: 0.2, splitBalance: s.splitBalance, queries: s.queries },
    leakage: { count: leak.count, testQueries: leak.testQueries, jaccardThreshold: leak.jaccardThreshold, pairs: [] },
    shownText: [benchmarkVerdict(s, { testFraction: 0.2, seed: 42, sample: false }), leakageSummary(leak), splitKnobVerdict(s, s, settings),
      benchmarkScaleSentence({ datasets, queries: s.queries.total, test: s.queries.test }, false)],
  });
  for (const datasets of [200, 10073]) {
    assert.equal(checkNotebookClaims('01-benchmark', results(datasets)), [], `${datasets} datasets`);
    caught('01-benchmark', results(datasets));
  }
  // the sentence written for a larger corpus, checked against a smaller one
  const big = results(10073);
  assert.ok(checkNotebookClaims('01-benchmark', { ...big, vsPaper: benchmarkVsPaperRows(s, 200) }).some((p) => /more than NASA-EO-Bench's datasets: 200 vs 8058/.test(p)));
  // a try-it split with other settings cannot be "the reported split"
  assert.ok(checkNotebookClaims('01-benchmark', { ...big, tryIt: { ...big.tryIt, seed: 7 } }).some((p) => /is the reported one/.test(p)));
});

test('claim check 08: the best tools (one, or every tie), the weakest, held out vs dev with drops / rises / stays', async () => {
  const all = await evaluateRouter(labelled, predict);
  const dev = await evaluateRouter(labelled.filter((q) => q.split === 'dev'), predict);
  const heldout = await evaluateRouter(labelled.filter((q) => q.split === 'heldout'), predict);
  const results = (a: typeof all, d: typeof dev, h: typeof heldout) => ({
    labelledQueries: a.queries, perTool: a.perTool, micro: a.micro, exactMatch: a.exactMatch,
    bySplit: { dev: d, heldout: h }, shownText: [routerVerdict({ all: a, dev: d, heldout: h, msPerQuery: 0.25 })],
  });
  const down = results(all, dev, heldout); // one best tool; F1 drops; fall-through stays
  assert.equal(checkNotebookClaims('08-router', down), []);
  caught('08-router', down);
  // "stays at" turned into a direction is caught as a direction, not as a sentence the check cannot read
  const ft = falsifiedClaims('08-router', down).map((f) => checkNotebookClaims('08-router', f.results)).find((ps) => ps.some((p) => /fall-through/.test(p)));
  assert.ok(ft && ft.some((p) => /says the fall-through accuracy drops; it goes from 50\.0% to 50\.0%/.test(p)), String(ft));
  const up = results(all, heldout, dev); // the two splits swapped: F1 rises
  assert.equal(checkNotebookClaims('08-router', up), []);
  caught('08-router', up);
  const tiedAll = { ...all, perTool: all.perTool.map((t) => (t.tool === 'giovanni' ? { ...t, f1: 1, precision: 1, fp: 0 } : t)) };
  const tied = results(tiedAll, dev, heldout);
  assert.equal(checkNotebookClaims('08-router', tied), []);
  // the sentence of the untied run read against the tied table: a tool tied at the top is not named
  assert.ok(checkNotebookClaims('08-router', { ...down, perTool: tiedAll.perTool }).some((p) => /tools at the top F1/.test(p)));
  // the fall-through accuracy said to stay where it moves
  const moved = { ...down, bySplit: { dev, heldout: { ...heldout, fallThroughAccuracy: 1 } } };
  assert.ok(checkNotebookClaims('08-router', moved).some((p) => /fall-through accuracy stays; it goes from/.test(p)));
});

test.run();
