import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot } from '../lib';
import {
  buildBenchmark, titleQueryWriter, llmQueryWriter, cleanWrittenQuery, stratifiedSplit, stratifiedSample,
  benchmarkQrels, benchmarkSplit, exportBenchmark, loadBenchmark, benchmarkStats, loadQueryWriterPrompt,
  queryWriterMessages, BENCHMARK_DEFAULTS, benchmarkSettings
} from '../lib/bench';
import { type LlmComplete } from '../lib/llm';
import { readTrecQrels } from '../lib/metrics';

const corpus = loadSnapshot({ sample: true });

test('split: no publication in two splits, both queries of a publication together, deterministic per seed', async () => {
  const twice = { id: 'twice', label: 'two queries', write: async (p: { title: string }) => [p.title, `${p.title} again`] };
  const a = await buildBenchmark(corpus, { writer: twice, seed: 1 });
  const b = await buildBenchmark(corpus, { writer: twice, seed: 1 });
  const c = await buildBenchmark(corpus, { writer: twice, seed: 2 });
  assert.equal(a.queries, b.queries);
  assert.equal(a.testSubset, b.testSubset);
  assert.not.equal(a.queries.map((q) => q.split), c.queries.map((q) => q.split));
  const splitOfPub = new Map<string, string>();
  for (const q of a.queries) {
    const prev = splitOfPub.get(q.publicationId);
    assert.ok(prev === undefined || prev === q.split, `publication ${q.publicationId} in two splits`);
    splitOfPub.set(q.publicationId, q.split);
  }
  assert.is(a.queries.length, 2 * splitOfPub.size);
  const test = [...splitOfPub.values()].filter((s) => s === 'test').length;
  assert.ok(Math.abs(test / splitOfPub.size - 0.2) < 0.05, `test share ${test / splitOfPub.size}`);
  // every test-subset query is a test query
  const byId = new Map(a.queries.map((q) => [q.id, q]));
  for (const id of a.testSubset) assert.is(byId.get(id)!.split, 'test');
});

test('stratified split keeps each stratum near the test fraction and ignores input order', () => {
  const items = Array.from({ length: 500 }, (_, i) => ({ id: `p${i}`, stratum: i % 5 === 0 ? 'big' : 'small' }));
  const s1 = stratifiedSplit(items, 0.2, 9);
  const s2 = stratifiedSplit([...items].reverse(), 0.2, 9);
  assert.equal([...s1].sort(), [...s2].sort());
  const big = items.filter((i) => i.stratum === 'big');
  assert.is(big.filter((i) => s1.get(i.id) === 'test').length, 20);
  assert.is(items.filter((i) => s1.get(i.id) === 'test').length, 100);
  assert.throws(() => stratifiedSplit(items, 1.2, 1), /testFraction/);
});

test('stratified sample: exact size, proportional strata, all items when fewer', () => {
  const items = Array.from({ length: 1000 }, (_, i) => ({ id: `q${String(i).padStart(4, '0')}`, stratum: i < 700 ? 'a' : i < 950 ? 'b' : 'c' }));
  const s = stratifiedSample(items, 200, 3);
  assert.is(s.length, 200);
  assert.is(new Set(s).size, 200);
  const strat = (p: string) => s.filter((id) => items[Number(id.slice(1))].stratum === p).length;
  assert.equal([strat('a'), strat('b'), strat('c')], [140, 50, 10]);
  assert.equal(stratifiedSample(items.slice(0, 50), 200, 3).length, 50);
  assert.equal(stratifiedSample(items, 200, 3), s);
});

test('labels keep relations and can be filtered; qrels views per split', async () => {
  const bench = await buildBenchmark(corpus, { writer: titleQueryWriter() });
  assert.is(bench.writer, 'title');
  assert.match(bench.writerLabel, /title/);
  assert.ok(bench.queries.every((q) => q.text.length > 0));
  const rels = new Set(bench.labels.map((l) => l.relation));
  assert.ok(rels.has('cites') && rels.has('publication_reference'));
  const all = benchmarkQrels(bench);
  const cites = benchmarkQrels(bench, { relations: ['cites'] });
  let nAll = 0, nCites = 0;
  for (const m of all.values()) nAll += m.size;
  for (const m of cites.values()) nCites += m.size;
  assert.is(nAll, corpus.links.length, 'one label per distinct link pair');
  assert.ok(nCites > 0 && nCites < nAll);
  const tr = benchmarkSplit(bench, 'train');
  const te = benchmarkSplit(bench, 'test');
  assert.is(tr.queries.length + te.queries.length, bench.queries.length);
  const citesOnly = await buildBenchmark(corpus, { writer: titleQueryWriter(), relations: ['cites'] });
  assert.ok(citesOnly.queries.length < bench.queries.length);
  assert.ok(citesOnly.labels.every((l) => l.relation === 'cites'));
});

test('LLM writer: prompt conditioned on abstract (or title), two samples at temperature 0.2, cleaned', async () => {
  const calls: { content: string; temperature: number; sample?: number }[] = [];
  const complete: LlmComplete = async (req) => {
    calls.push({ content: req.messages[req.messages.length - 1].content, temperature: req.temperature, sample: req.sample });
    return { text: `<think>hmm</think>\nQuery: "I want to study thing ${req.sample}"\nextra`, model: 'fake-1' };
  };
  const w = llmQueryWriter({ complete, model: 'fake-1' });
  const withAbstract = corpus.publications.find((p) => p.abstract)!;
  const titleOnly = corpus.publications.find((p) => !p.abstract)!;
  assert.equal(await w.write(withAbstract), ['I want to study thing 1', 'I want to study thing 2']);
  assert.ok(calls[0].content.includes(withAbstract.abstract!.trim()));
  assert.ok(calls.every((c) => c.temperature === 0.2));
  assert.equal(calls.map((c) => c.sample), [1, 2]);
  await w.write(titleOnly);
  assert.ok(calls[2].content.includes(titleOnly.title) && /title of a scientific publication/.test(calls[2].content));
  assert.is(w.id, 'llm:fake-1');
  const empty = llmQueryWriter({ complete: async () => ({ text: '   \n', model: 'x' }), model: 'x' });
  try { await empty.write(titleOnly); assert.unreachable(); } catch (e) { assert.match((e as Error).message, /no text/); }
  const tpl = loadQueryWriterPrompt();
  assert.match(queryWriterMessages(titleOnly, tpl)[0].content, /search queries/);
  assert.is(cleanWrittenQuery("'I want to map ice'"), 'I want to map ice');
});

test('benchmark settings: one default (seed 42, 20 % test, subset 200, all relations) used by buildBenchmark', async () => {
  assert.equal({ ...BENCHMARK_DEFAULTS }, { seed: 42, testFraction: 0.2, subsetSize: 200, relations: null });
  const full = benchmarkSettings();
  assert.is(full.name, 'eo-title');
  assert.is(full.writer.id, 'title');
  assert.ok(full.dir.endsWith(path.join('data', 'bench', 'eo-title')), full.dir);
  const s = benchmarkSettings({ sample: true, seed: 7 });
  assert.is(s.name, 'eo-title-sample');
  assert.ok(s.dir.endsWith(path.join('data', 'bench', 'eo-title-sample')), s.dir);
  assert.is(s.seed, 7);
  assert.is(s.testFraction, BENCHMARK_DEFAULTS.testFraction);
  // buildBenchmark without settings uses the same defaults as the shared settings
  const implicit = await buildBenchmark(corpus, { writer: titleQueryWriter() });
  const explicit = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  assert.equal(implicit.queries, explicit.queries);
  assert.equal(implicit.testSubset, explicit.testSubset);
  assert.is(explicit.name, 'eo-title-sample');
  assert.not.equal((await buildBenchmark(corpus, s)).queries.map((q) => q.split), explicit.queries.map((q) => q.split));
});

test('export: BEIR layout and TREC qrels round trip; load refuses another corpus', async () => {
  const bench = await buildBenchmark(corpus, { writer: titleQueryWriter() });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bench-'));
  exportBenchmark(dir, bench, corpus);
  for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/train.tsv', 'qrels/test.tsv', 'qrels.test.trec', 'benchmark.json'])
    assert.ok(fs.existsSync(path.join(dir, f)), f);
  assert.is(fs.readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8').trim().split('\n').length, corpus.datasets.length);
  const tsv = fs.readFileSync(path.join(dir, 'qrels/test.tsv'), 'utf8').trim().split('\n');
  assert.is(tsv[0], 'query-id\tcorpus-id\tscore');
  const trec = readTrecQrels(path.join(dir, 'qrels.test.trec'));
  assert.is(tsv.length - 1, [...trec.values()].reduce((a, m) => a + m.size, 0));
  const back = loadBenchmark(path.join(dir, 'benchmark.json'), corpus);
  assert.equal(back.queries, bench.queries);
  const other = { ...corpus, hash: 'ffffffffffffffff' };
  assert.throws(() => loadBenchmark(path.join(dir, 'benchmark.json'), other), /rebuild/);
  const st = benchmarkStats(bench, corpus);
  assert.is(st.queries.total, bench.queries.length);
  assert.is(st.splitBalance.reduce((a, r) => a + r.train + r.test, 0), st.publications);
});

test.run();
