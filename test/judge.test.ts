import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, isEoError, judgeRun } from '../lib';
import { type DatasetRecord } from '../lib/data';
import {
  createLlmJudge, defaultJudgePromptPath, judgeMessages, judgeRunRow, loadJudgePrompt, openJudgeCache,
  parseJudgeAnswer
} from '../lib/judge';
import { memoryRecordStore, type ModelConfig } from '../lib/llm';
import { type Run } from '../lib/metrics';
import { lastUserText, startFakeOpenAI, type FakeServer } from './servers/fake-llm';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-judge-test-'));

function dataset(id: string, longName: string, abstract = `About ${longName}.`): DatasetRecord {
  return {
    id, shortName: id.toUpperCase(), longName, abstract, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [],
  };
}

// 25 datasets: d0..d24. Sea-ice ones: every third (d0, d3, …). Aerosol ones: every fourth. d7 gets an unreadable answer.
const DATASETS = Array.from({ length: 25 }, (_, i) => dataset(`d${i}`, i % 3 === 0 ? `Sea ice concentration product ${i}` : i % 4 === 0 ? `Aerosol optical depth ${i}` : `Land cover map ${i}`));
const BY_ID = new Map(DATASETS.map((d) => [d.id, d]));

/** A vLLM-like judge: YES when the dataset title mentions the query's topic word; odd formats for some ids. */
function judgeScript(req: any) {
  const user = lastUserText(req.body);
  const query = /Research query:\n(.*)\n/.exec(user)![1];
  const title = /<title>(.*)<\/title>/.exec(user)![1];
  const topic = query.includes('sea ice') ? 'Sea ice' : 'Aerosol';
  const yes = title.startsWith(topic);
  const n = Number(/(\d+)$/.exec(title)![1]);
  if (n === 7) return { text: 'I cannot decide.' };
  if (n === 9) return { text: `<think>The query needs ${topic}; the title says ${title}.</think>\n${yes ? 'YES' : 'NO'}` };
  if (n === 12) return { text: `${yes ? 'Yes' : 'No'}, because of the measured variable.` };
  return { text: yes ? 'YES' : 'NO' };
}

function judgeConfig(url: string): ModelConfig {
  return { id: 'qwen-judge', provider: 'openai-compatible', model: 'Qwen/Qwen2.5-7B-Instruct', baseUrl: url, inputPricePerMTok: 0.1, outputPricePerMTok: 0.2 };
}

/** Run: query → datasets in the given order with descending scores. */
function runOf(order: Record<string, string[]>): Run {
  return new Map(Object.entries(order).map(([q, ids]) => [q, ids.map((docId, i) => ({ docId, score: 100 - i }))]));
}

const QUERIES = [
  { id: 'q1', text: 'I want to study sea ice decline' },
  { id: 'q2', text: 'I want to map aerosol loading' },
];
const ALL = DATASETS.map((d) => d.id);
const RUN = runOf({ q1: ALL, q2: [...ALL].reverse() });

function expectedP(ids: string[], topic: 'ice' | 'aer', k: number): number {
  let hit = 0;
  for (const id of ids.slice(0, k)) {
    const i = Number(id.slice(1));
    if (i === 7) continue; // unreadable → not relevant
    if (topic === 'ice' ? i % 3 === 0 : i % 3 !== 0 && i % 4 === 0) hit++;
  }
  return hit / k;
}

async function withServer<T>(srv: FakeServer, f: (s: FakeServer) => Promise<T>): Promise<T> {
  try {
    return await f(srv);
  } finally {
    await srv.close();
  }
}

test('parseJudgeAnswer: exact answers and every repair; failures are null', () => {
  const cases: [string, boolean | null, string][] = [
    ['YES', true, 'exact'],
    ['no', false, 'exact'],
    [' Yes. ', true, 'exact'],
    ['**NO**', false, 'exact'],
    ['"YES"', true, 'exact'],
    ['```\nYES\n```', true, 'exact'],
    ['<think>Is it yes? no, wait.</think>\nYES', true, 'exact'],
    ['{"answer": "no"}', false, 'json'],
    ['```json\n{"relevant": true}\n```', true, 'json'],
    ['Yes, the dataset measures sea-ice concentration.', true, 'prefix'],
    ['NO - it measures aerosols', false, 'prefix'],
    ['The dataset measures soil moisture, not precipitation. Answer: NO', false, 'marker'],
    ['Considering the variable... Final answer: yes', true, 'marker'],
    ['I would say yes here.', true, 'sole-word'],
    ['It could be yes or no.', null, 'failed'],
    ['Maybe.', null, 'failed'],
    ['', null, 'failed'],
    ['<think>Let me think about whether YES', null, 'failed'],
    ['Nothing matches', null, 'failed'],
  ];
  for (const [text, relevant, kind] of cases) {
    const p = parseJudgeAnswer(text);
    assert.is(p.relevant, relevant, `relevant of ${JSON.stringify(text)}`);
    assert.is(p.kind, kind, `kind of ${JSON.stringify(text)}`);
  }
  assert.is(parseJudgeAnswer('<think>x</think>NO').thinkStripped, true);
  assert.is(parseJudgeAnswer('NO').thinkStripped, false);
});

test('judge prompt: data file marked as written from the paper\'s description; placeholders filled; summary cut', () => {
  const raw = fs.readFileSync(defaultJudgePromptPath(), 'utf8');
  assert.ok(/WRITTEN FROM THE PAPER'S DESCRIPTION, NOT THE VERBATIM/.test(raw));
  const tpl = loadJudgePrompt();
  assert.ok(/YES or NO/.test(tpl.system));
  const d = dataset('dx', 'MODIS Aerosol', 'a'.repeat(2000));
  const [sys, user] = judgeMessages(tpl, ' I want AOD ', d, 100);
  assert.is(sys.role, 'system');
  assert.ok(user.content.includes('Research query:\nI want AOD\n'));
  assert.ok(user.content.includes('<title>MODIS Aerosol</title>'));
  assert.ok(user.content.includes('<short_name>DX</short_name>'));
  assert.ok(user.content.includes(`<summary>${'a'.repeat(100)}…</summary>`));
  assert.not.ok(/\{\{/.test(user.content));
  assert.ok(/same physical variable or phenomenon/.test(user.content));
});

test('judgeRun: P@5/10/20 per query and macro over a vLLM-like server; failures counted; recorded', async () => {
  await withServer(await startFakeOpenAI(judgeScript), async (srv) => {
    const store = memoryRecordStore();
    const client = createLlmClient(judgeConfig(srv.url), { mode: 'record', store, env: {}, maxRetries: 0 });
    const judge = createLlmJudge({ client });
    const r = await judgeRun({ run: RUN, queries: QUERIES, datasets: BY_ID, judge });
    assert.equal(r.ks, [5, 10, 20]);
    const q1 = ALL;
    const q2 = [...ALL].reverse();
    for (const k of [5, 10, 20]) {
      assert.ok(Math.abs(r.perQuery[0].values[`P@${k}`] - expectedP(q1, 'ice', k)) < 1e-12, `q1 P@${k}`);
      assert.ok(Math.abs(r.perQuery[1].values[`P@${k}`] - expectedP(q2, 'aer', k)) < 1e-12, `q2 P@${k}`);
      assert.ok(Math.abs(r.macro[`P@${k}`] - (expectedP(q1, 'ice', k) + expectedP(q2, 'aer', k)) / 2) < 1e-12);
    }
    assert.is(r.perQuery[0].values['P@5'], 2 / 5); // d0, d3
    assert.is(r.pairs, 40); // top 20 of each query
    assert.is(srv.requests.length, 40);
    assert.is(r.llmCalls, 40);
    assert.equal(r.failures.map((f) => `${f.queryId}:${f.datasetId}`), ['q1:d7', 'q2:d7']);
    assert.is(r.perQuery[0].failures, 1);
    assert.is(r.byKind.failed, 2);
    assert.is(r.byKind.prefix, 2); // d12 in both tops
    assert.is(r.byKind.exact, 36); // includes d9 after <think> removal
    assert.ok(r.costUsd > 0);
    assert.is(store.size(), 40, 'every judge call is in the LLM record store');
    assert.equal(judgeRunRow('bm25', r), { system: 'bm25', 'P@5': r.macro['P@5'], 'P@10': r.macro['P@10'], 'P@20': r.macro['P@20'] });
    // wire: temperature 0 and a small max_tokens to the OpenAI-compatible endpoint
    assert.is(srv.requests[0].body.temperature, 0);
    assert.is(srv.requests[0].body.max_tokens, 32);

    // replay: the same numbers with no server at all
    const replayJudge = createLlmJudge({ client: createLlmClient(judgeConfig('http://127.0.0.1:9/v1'), { mode: 'replay', store, env: {} }) });
    const r2 = await judgeRun({ run: RUN, queries: new Map(QUERIES.map((q) => [q.id, q.text])), datasets: (id) => BY_ID.get(id), judge: replayJudge });
    assert.equal(r2.perQuery, r.perQuery);
    assert.is(srv.requests.length, 40);
  });
});

test('judge cache: overlapping runs and later processes never ask twice; another prompt is another judge', async () => {
  await withServer(await startFakeOpenAI(judgeScript), async (srv) => {
    const cacheFile = path.join(TMP, 'judge-cache.jsonl');
    const client = createLlmClient(judgeConfig(srv.url), { mode: 'live', env: {}, maxRetries: 0 });
    const judge = createLlmJudge({ client, cache: cacheFile });
    const a = await judgeRun({ run: runOf({ q1: ALL.slice(0, 10) }), queries: QUERIES.slice(0, 1), datasets: BY_ID, judge, ks: [5, 10] });
    assert.is(srv.requests.length, 10);
    // a second system whose top 10 overlaps in 5 datasets
    const b = await judgeRun({ run: runOf({ q1: [...ALL.slice(5, 10), ...ALL.slice(15, 20)] }), queries: QUERIES.slice(0, 1), datasets: BY_ID, judge, ks: [5, 10] });
    assert.is(srv.requests.length, 15, 'only the 5 new pairs were judged');
    assert.is(b.cacheHits, 5);
    assert.is(b.llmCalls, 5);
    assert.is(a.perQuery[0].values['P@10'], expectedP(ALL, 'ice', 10));
    // a new process (new judge, same cache file, live client): no calls, no cost
    const judge2 = createLlmJudge({ client: createLlmClient(judgeConfig(srv.url), { mode: 'live', env: {} }), cache: cacheFile });
    const c = await judgeRun({ run: runOf({ q1: ALL.slice(0, 10) }), queries: QUERIES.slice(0, 1), datasets: BY_ID, judge: judge2, ks: [5, 10] });
    assert.is(srv.requests.length, 15);
    assert.equal(c.perQuery, a.perQuery);
    assert.is(c.costUsd, 0);
    assert.is(openJudgeCache(cacheFile).size(), 15);
    // a different prompt → a different judge id → asks again
    const tpl = loadJudgePrompt();
    const judge3 = createLlmJudge({ client, cache: cacheFile, prompt: { ...tpl, system: tpl.system + ' Be strict.' } });
    assert.is.not(judge3.id, judge2.id);
    await judge3.judge(QUERIES[0].text, BY_ID.get('d0')!);
    assert.is(srv.requests.length, 16);
  });
});

test('judgeRun: missing query scores 0 and is listed; unknown dataset id is DATA_NOT_FOUND; bad ks rejected', async () => {
  await withServer(await startFakeOpenAI(judgeScript), async (srv) => {
    const judge = createLlmJudge({ client: createLlmClient(judgeConfig(srv.url), { mode: 'live', env: {} }) });
    const r = await judgeRun({ run: runOf({ q1: ['d0', 'd3'] }), queries: QUERIES, datasets: BY_ID, judge, ks: [5] });
    assert.equal(r.missingFromRun, ['q2']);
    assert.is(r.perQuery[1].values['P@5'], 0);
    assert.is(r.perQuery[0].values['P@5'], 2 / 5, 'short run: divided by k');
    let err: unknown;
    try {
      await judgeRun({ run: runOf({ q1: ['nope'] }), queries: QUERIES.slice(0, 1), datasets: BY_ID, judge });
    } catch (e) {
      err = e;
    }
    assert.ok(isEoError(err, 'DATA_NOT_FOUND') && (err as Error).message.includes('nope'));
    err = undefined;
    try {
      await judgeRun({ run: RUN, queries: QUERIES, datasets: BY_ID, judge, ks: [0] });
    } catch (e) {
      err = e;
    }
    assert.ok(isEoError(err, 'INVALID_ARGUMENT'));
  });
});

test.after(() => fs.rmSync(TMP, { recursive: true, force: true }));

test.run();
