// The library behind notebooks 06/07: a recording against the local stand-in server replays with no server and no
// key into LLM rows, agentic rows and judge columns labelled as stand-in plumbing; the judge plan; the routing sweep;
// the generated summaries (winner, CI, the paper's numbers) and the cost-plan rows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DatasetRecord } from '../lib/data/types';
import { evaluateRun } from '../lib/metrics/metrics';
import type { PerQueryMetrics, Qrels } from '../lib/metrics/types';
import { getModelConfig, llmCostPlan, loadModelsFile, STAND_IN_LABEL, STAND_IN_MODEL } from '../lib/llm';
import { llmJudgePlan, plannedJudge } from '../lib/judge';
import { llmRerankerLabel, llmRerankPlan, listwiseReranker, rerankTable, rerankTableRows as rerankTableRowsWithExtras, runFromLists, type Backbone, type BackboneList, type RerankTable } from '../lib/rerank';
import { routingSweep, singleShotVsAgentic, type AgentTool } from '../lib/agent';
import { createLlmClient } from '../lib/llm';
import { paperRowFor, rerankExtras, rerankJudge } from '../lib/report';
import { agenticVerdict, agentTraceRows, costPlanRows, judgeVerdict, rerankVerdict, routingThresholds, routingVerdict } from '../lib/lessons';
import { standInCallsTool, standInJudge, standInRanking, startStandInServer } from './servers/stand-in';

function dataset(id: string, title: string, abstract: string): DatasetRecord {
  return {
    id, shortName: id.toUpperCase(), longName: title, abstract, doi: null, daac: 'T', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

const TOPICS = ['sea ice thickness arctic', 'aerosol optical depth india', 'glacier debris thickness everest', 'soil moisture drought africa', 'ocean chlorophyll bloom', 'snow cover alps', 'methane emissions wetlands', 'river discharge amazon'];
const FILLER = ['land surface temperature', 'precipitation radar', 'vegetation index', 'cloud fraction', 'ozone column', 'wind speed', 'nitrogen dioxide', 'sea level'];

/** Eight queries; each has ten candidates in which the relevant one (matching the query's words) sits at rank 6. */
function fixture() {
  const datasets = new Map<string, DatasetRecord>();
  const lists: BackboneList[] = TOPICS.map((topic, qi) => {
    const candidates = Array.from({ length: 10 }, (_, r) => {
      const rel = r === 5;
      const id = `q${qi}d${r}`;
      const text = rel ? topic : FILLER[(r + qi) % FILLER.length];
      const d = dataset(id, `${text} product`, `Gridded ${text} observations from satellites.`);
      datasets.set(id, d);
      return { id, record: d, retrievalScore: 10 - r, retrievalRank: r + 1, scores: {} };
    });
    return { query: { id: `q${qi}`, text: `I want to study ${topic}` }, candidates };
  });
  const qrels: Qrels = new Map(lists.map((l) => [l.query.id, new Map([[l.candidates[5].id, 1]])]));
  const backbone = { id: 'strong', label: 'NN-SSC + BM25', alpha: 0.5, lists, trainLists: [] } as unknown as Backbone;
  return { datasets, lists, qrels, backbone, queries: lists.map((l) => l.query) };
}

/** A local tool that returns one item per call (counts its calls). */
function localTool(): AgentTool & { calls: number } {
  const t = {
    calls: 0,
    spec: { name: 'arxiv_search', description: 'search papers', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
    mode: 'offline' as const,
    async run(args: Record<string, unknown>) {
      t.calls++;
      return { items: [{ title: `paper about ${String(args.query)}`, snippet: 'abstract' }], source: 'test' };
    },
  };
  return t;
}

test('stand-in answers: listwise by word overlap, judge YES/NO by coverage, tool use by query hash', () => {
  const user = '<query>sea ice thickness</query>\n<candidates>\n<candidate id="1">\n<title>ozone</title>\n<summary>ozone column</summary>\n</candidate>\n<candidate id="2">\n<title>sea ice thickness</title>\n<summary>x</summary>\n</candidate>\n</candidates>';
  assert.equal(standInRanking(user), [2, 1]);
  assert.is(standInJudge('Research query:\nsea ice thickness\n\nDataset:\n<dataset><title>Sea ice thickness</title></dataset>'), 'YES');
  assert.is(standInJudge('Research query:\nsea ice thickness\n\nDataset:\n<dataset><title>ozone</title></dataset>'), 'NO');
  assert.is(standInRanking('hello'), null);
  const calls = TOPICS.map((t) => standInCallsTool(`I want to study ${t}`));
  assert.ok(calls.includes(true) && calls.includes(false), `the fixture has queries of both kinds: ${calls}`);
});

test('a stand-in recording replays with no server and no key: LLM rows, agentic rows and judge columns, labelled as plumbing', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-standin-'));
  const store = path.join(dir, 'records.jsonl');
  const { datasets, qrels, backbone, queries } = fixture();
  const tool = localTool();
  const srv = await startStandInServer();
  const recordEnv = { EO_LLM_MODE: 'record', EO_LLM_STORE: store, EO_STANDIN_BASE_URL: srv.url, EO_RERANK_MODELS: 'stand-in', EO_JUDGE_MODEL: 'stand-in' };
  const run = async (env: Record<string, string>) => {
    const plan = llmRerankPlan({ env });
    assert.equal(plan.configs.map((c) => c.id), ['stand-in']);
    const client = createLlmClient(plan.configs[0], { mode: plan.mode, store: plan.store, env, log: () => {} });
    const t = await rerankTable([backbone], [listwiseReranker(client, { label: llmRerankerLabel(plan, 'stand-in') })], qrels);
    const t6 = await singleShotVsAgentic(plan.configs, { mode: plan.mode, store: plan.store, backbone, qrels, tools: [tool], sourceOf: () => null, env, log: () => {}, label: (id, kind) => llmRerankerLabel(plan, id, kind) });
    const jp = llmJudgePlan({ env });
    const judge = plannedJudge(jp, { env, log: () => {} });
    const j = await rerankJudge({ backbones: [backbone], tables: [t, t6.table], queries, datasets, judge, notConfigured: jp.status, standIn: jp.standIn });
    return { plan, t, t6, jp, j };
  };
  let recorded: Awaited<ReturnType<typeof run>>;
  try {
    recorded = await run(recordEnv);
  } finally {
    await srv.close();
  }
  const requests = srv.requests.length;
  assert.ok(requests > 0);
  // the stand-in ranks the relevant dataset (rank 6) first: MRR 1/6 → 1
  assert.ok(recorded.t.outcomes[0].row.MRR > recorded.t.backbones[0].row.MRR);
  const lines = fs.readFileSync(store, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.every((r) => r.requestedModel === STAND_IN_MODEL && r.response.model === STAND_IN_MODEL), 'every record names the stand-in model');
  const stages = new Set(lines.map((r) => r.stage));
  assert.ok(stages.has('judge') && stages.has('listwise') && stages.has('agentic'), [...stages].join(',') + ' ' + recorded.t6.errors.join('; '));
  fs.rmSync(path.join(dir, 'records.judge-cache.jsonl'), { force: true }); // replay must come from the record store itself

  // replay: server closed, default mode (replay), no model or judge named
  const replay = await run({ EO_LLM_STORE: store });
  assert.is(replay.plan.mode, 'replay');
  const row = replay.plan.rows.find((r) => r.model === 'stand-in')!;
  assert.ok(row.standIn && row.runs);
  assert.is(row.recordedCalls, lines.filter((r) => r.stage !== 'judge').length, 'judge calls do not count as rerank recordings');
  assert.match(row.status, STAND_IN_LABEL);
  assert.is(replay.jp.config?.id, 'stand-in');
  assert.ok(replay.jp.standIn);
  assert.is(replay.jp.recordedCalls, lines.filter((r) => r.stage === 'judge').length);
  assert.equal(replay.t.outcomes[0].row, recorded.t.outcomes[0].row);
  assert.match(replay.t.outcomes[0].label, STAND_IN_LABEL);
  assert.equal(replay.t6.pairs.map((p) => p.agentic.row), recorded.t6.pairs.map((p) => p.agentic.row));
  const expectedRate = queries.filter((q) => standInCallsTool(q.text)).length / queries.length;
  assert.is(replay.t6.pairs[0].agentic.summary.toolCallRate, expectedRate);
  assert.equal([...replay.j.byLabel], [...recorded.j.byLabel]);
  assert.ok(replay.j.byLabel.size >= 3 && replay.j.comparison !== null);
  const rows = rerankTableRowsWithExtras(replay.t, rerankExtras(replay.j));
  assert.ok(rows.every((r) => typeof r['P@10'] === 'number' && r.judge === STAND_IN_LABEL), JSON.stringify(rows));
  assert.match(judgeVerdict(replay.j), STAND_IN_LABEL);
  assert.match(agenticVerdict(replay.t6.pairs), /stand-in server/);
  assert.is(agentTraceRows(replay.t6.pairs[0].agentic).length, queries.length);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('no judge: columns say not configured, with the reason', async () => {
  const { datasets, qrels, backbone, queries } = fixture();
  const jp = llmJudgePlan({ env: { EO_LLM_STORE: path.join(os.tmpdir(), 'eo-no-such-store.jsonl') } });
  assert.is(jp.config, null);
  assert.match(jp.status, /^not configured/);
  const t = await rerankTable([backbone], [], qrels);
  const j = await rerankJudge({ backbones: [backbone], tables: [t], queries, datasets, judge: null, notConfigured: jp.status });
  const rows = rerankTableRowsWithExtras(t, rerankExtras(j));
  assert.match(String(rows[0].judge), /^not configured/);
  assert.is(rows[0]['P@10'], undefined);
  assert.is(rows[0]['paper MAP'], 0.26, "the paper's no-rerank row of Table 4/5");
  assert.match(judgeVerdict(j), /not configured/);
  assert.throws(() => llmJudgePlan({ env: { EO_LLM_MODE: 'live', EO_JUDGE_MODEL: 'no-such-model' } }), /no-such-model/);
});

function perQuery(ids: string[], map: number[], mrr: number[]): PerQueryMetrics {
  return { queryIds: ids, values: { 'R@10': map.map(() => 1), 'R@20': map.map(() => 1), 'R@100': map.map(() => 1), MAP: map, MRR: mrr } } as PerQueryMetrics;
}

test('routing sweep: each query takes the tools run below the threshold, the no-tools run above', () => {
  const ids = ['a', 'b', 'c', 'd'];
  const never = { perQuery: perQuery(ids, [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4]) };
  const always = { perQuery: perQuery(ids, [0.9, 0.8, 0.7, 0.6], [1, 1, 1, 1]) };
  const margins = new Map([['a', 0.1], ['b', 0.5], ['c', 1], ['d', 2]]);
  const rows = routingSweep(margins, never, always, [-Infinity, 0.6, Infinity]);
  assert.is(rows[0]['tool-call rate'], 0);
  assert.ok(Math.abs(rows[0].MAP - 0.25) < 1e-12);
  assert.is(rows[1]['tool-call rate'], 0.5);
  assert.ok(Math.abs(rows[1].MAP - (0.9 + 0.8 + 0.3 + 0.4) / 4) < 1e-12);
  assert.is(rows[2]['tool-call rate'], 1);
  assert.ok(Math.abs(rows[2].MRR - 1) < 1e-12);
  assert.throws(() => routingSweep(margins, never, { perQuery: perQuery(['x', 'b', 'c', 'd'], [0, 0, 0, 0], [0, 0, 0, 0]) }, [0]), /different queries/);
  const th = routingThresholds(margins, 0.6);
  assert.ok(th[0] === -Infinity && th[th.length - 1] === Infinity && th.includes(0.6));
  const v = routingVerdict(routingSweep(margins, never, always, th), 0.6, 0.6);
  assert.match(v, /50\.0%/);
  assert.match(v, /the trained one/);
  assert.match(v, /41\.0% \(Opus 4\.7 agentic\)/);
});

test("generated summary: winner, margin, whether the CI excludes 0, the paper's numbers beside ours", async () => {
  const { qrels, backbone } = fixture();
  const perfect = { id: 'llm-gpt-5.5', label: 'LLM rerank (gpt-5.5)', kind: 'llm' as const, async rerank(_q: unknown, w: readonly unknown[]) {
    return { ranked: [6, ...Array.from({ length: w.length }, (_, i) => i + 1).filter((i) => i !== 6)], trace: { reranker: 'x', queryId: 'q', windowStart: 0, windowSize: w.length, calls: 0, repairs: {} as never, toolCalls: [], toolRounds: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0, ranked: [], recordKeys: [], notes: [] } };
  } };
  const t: RerankTable = await rerankTable([backbone], [perfect], qrels);
  const text = rerankVerdict(t, { sample: true });
  assert.match(text, /best row by MAP is \*\*NN-SSC \+ BM25 \+ LLM rerank \(gpt-5\.5\)\*\* with 1\.000/);
  assert.match(text, /\*\*excludes 0\*\*/);
  assert.match(text, /R@10 unchanged/);
  assert.match(text, /Paper: NN-SSC\+BM25 \(no rerank\) 0\.260\/0\.302 → \+ GPT-5\.5 0\.322\/0\.383/);
  assert.match(text, /sample/);
  assert.is(paperRowFor('NN-SSC + BM25', { reranker: 'agent-claude-opus-4-7' })?.MRR, 0.388);
  assert.is(paperRowFor('NN-SSC + BM25', { reranker: 'offline-rerank' }), null);
  // an evaluation of the same run gives the same row (the table is built from the runs it writes)
  assert.equal(evaluateRun(runFromLists(backbone.lists), qrels).values.MRR, t.backbones[0].perQuery.values.MRR);
});

test('cost-plan rows: a total row; live-only where there is no batch API; unchecked prices starred', () => {
  const models = loadModelsFile().models;
  const rows = llmCostPlan(
    [
      { stage: 'listwise', configId: 'gpt-5.5', calls: 200, inputTokensPerCall: 1000, answerTokensPerCall: 40 },
      { stage: 'listwise', configId: 'deepseek-v4-pro', calls: 200, inputTokensPerCall: 1000, answerTokensPerCall: 40 },
    ],
    { models },
  );
  const shown = costPlanRows(rows);
  assert.is(shown.length, 3);
  assert.is(shown[0].model, `gpt-5.5${getModelConfig('gpt-5.5', models).pricesToBeChecked ? '*' : ''}`);
  assert.is(shown[1]['batch $'], 'live only');
  assert.is(shown[2].model, 'total');
  assert.is(shown[2].calls, 400);
  assert.ok(Math.abs((shown[2]['standard $'] as number) - Math.round((rows[0].standardUsd + rows[1].standardUsd) * 100) / 100) < 1e-9);
});

test.run();
