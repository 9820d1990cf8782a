/** `eo llm plan`: calls, tokens, standard and batch cost per model and stage, recorded calls excluded from the cost. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot } from '../lib';
import { queryWriterRequests } from '../lib/bench';
import { defaultModelsFilePath, formatCostPlan, getModelConfig, llmCostPlan, llmRecordKey, loadModelsFile, memoryRecordStore, normalizeChatRequest, paperPlanStages, type LlmRecord } from '../lib/llm';
import { paperCostPlanTable } from '../lib/report';
import { repoRoot } from '../lib/util';

const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;
const SIZES = { listwiseInputTokens: 2000, writerInputTokens: 600, judgeInputTokens: 450 };

function rec(configId: string, stage: string, key: string): LlmRecord {
  return {
    v: 1, key, configId, provider: 'openai', requestedModel: 'm', stage, costUsd: 0, latencyMs: 0, timestamp: '',
    request: { messages: [{ role: 'user', content: 'x' }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
    response: { text: '', toolCalls: [], stopReason: 'stop', model: 'm', usage: { inputTokens: 0, outputTokens: 0 }, raw: null },
  };
}

test('paper stages: five listwise rerankers, two agentic (live only), judge over the shared top 20, writer when asked', () => {
  const stages = paperPlanStages({ queries: 200, sizes: SIZES, writerCalls: 10 });
  assert.equal(stages.map((s) => `${s.stage}:${s.configId}:${s.calls}`), [
    'writer:gpt-5.4-writer:10',
    'listwise:gpt-5.5:200', 'listwise:gpt-5.4:200', 'listwise:o4-mini:200', 'listwise:claude-opus-4-7:200', 'listwise:deepseek-v4-pro:200',
    'agentic:claude-opus-4-7:800', 'agentic:deepseek-v4-pro:800',
    'judge:qwen3.6-35b-a3b-judge:4000',
  ]);
  // agentic input per query ≈ 4 turns of the listwise prompt + growing tool results: within the paper's 5-10x
  const ag = stages.find((s) => s.stage === 'agentic')!;
  const ratio = (ag.inputTokensPerCall * 4) / SIZES.listwiseInputTokens;
  assert.ok(ratio > 5 && ratio < 10, `ratio ${ratio}`);
});

test('cost: standard and batch prices from the models file; recorded calls cost nothing; no batch for agentic or DeepSeek', () => {
  const store = memoryRecordStore([rec('o4-mini', 'listwise', 'a'), rec('o4-mini', 'listwise', 'b'), rec('o4-mini', 'judge', 'c'), rec('o4-mini', 'listwise', 'other-corpus')]);
  // this run's ten listwise keys: two of them recorded ('c' is the judge's, 'other-corpus' another run's)
  const stages = paperPlanStages({ queries: 10, sizes: SIZES, judge: null }).map((s) => (s.configId === 'o4-mini' && s.stage === 'listwise' ? { ...s, keys: ['a', 'b', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'] } : s));
  const rows = llmCostPlan(stages, { models: MODELS, store });
  const o4 = rows.find((r) => r.model === 'o4-mini')!;
  assert.is(o4.recorded, 2, 'only its own keys count');
  const o4cfg = MODELS.find((m) => m.id === 'o4-mini')!;
  const out = 40 + o4cfg.estimatedReasoningTokens!;
  const expected = (8 * 2000 * o4cfg.inputPricePerMTok + 8 * out * o4cfg.outputPricePerMTok) / 1e6;
  assert.ok(Math.abs(o4.standardUsd - expected) < 1e-12, `${o4.standardUsd} vs ${expected}`);
  assert.ok(Math.abs(o4.batchUsd! - expected / 2) < 1e-12);
  assert.is(rows.find((r) => r.model === 'deepseek-v4-pro' && r.stage === 'listwise')!.batchUsd, null);
  assert.is(rows.find((r) => r.model === 'claude-opus-4-7' && r.stage === 'agentic')!.batchApi, 'none');
  // a stage without keys counts nothing as recorded: the records of the same model and stage may be another run's
  const unknown = rows.find((r) => r.model === 'gpt-5.5')!;
  assert.is(unknown.recorded, null);
  const blind = llmCostPlan(paperPlanStages({ queries: 10, sizes: SIZES, judge: null }), { models: MODELS, store }).find((r) => r.model === 'o4-mini')!;
  assert.is(blind.recorded, null, 'o4-mini listwise records of another corpus are not counted');
  assert.ok(Math.abs(blind.standardUsd - (expected * 10) / 8) < 1e-12, 'every call costed');
  const md = formatCostPlan(rows, 'test');
  assert.match(md, /\| gpt-5\.5\* \| listwise \| 10 \| – \|/);
  assert.match(md, /recorded –: the calls' request keys are not known here/);
  assert.match(md, /\| o4-mini\* \| listwise \| 10 \| 2 \|/);
  assert.match(md, /live only/);
  assert.match(md, /\*\*total\*\*/);
  assert.match(md, /pricesToBeChecked/);
});

test('eo llm plan --sample --json runs on the sample snapshot', () => {
  const out = execFileSync(process.execPath, [path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js'), 'llm', 'plan', '--sample', '--json', '--queries', '20', '--store', path.join(repoRoot(), 'no-such-dir', 'r.jsonl')], { encoding: 'utf8' });
  const j = JSON.parse(out);
  assert.is(j.queries, 20);
  assert.ok(j.sizes.listwiseInputTokens > 500, 'ten candidates with summaries');
  assert.is(j.rows.find((r: { stage: string }) => r.stage === 'judge').calls, 400);
});

test('the notebooks\' table: paperCostPlanTable on the sample snapshot', () => {
  const md = paperCostPlanTable(loadSnapshot({ sample: true }), { queries: 20, models: MODELS, store: null });
  assert.match(md, /^### LLM cost plan: 20 queries/);
  assert.match(md, /\| gpt-5\.5\* \| listwise \| 20 \| 0 \|/);
  assert.match(md, /\| qwen3\.6-35b-a3b-judge \| judge \| 400 \|/);
});

test('eo llm plan: "recorded" counts this run\'s writer keys only; listwise rows of a non-empty store say – (unknown)', () => {
  const corpus = loadSnapshot({ sample: true });
  const linked = new Set(corpus.links.map((l) => l.publicationId));
  const pub = corpus.publications.find((p) => linked.has(p.id))!;
  const writer = getModelConfig('gpt-5.4-writer', MODELS);
  const ours = queryWriterRequests(pub).map((r) => llmRecordKey(writer, normalizeChatRequest(writer, r)));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-plan-'));
  try {
    const file = path.join(dir, 'records.jsonl');
    // two of this corpus's writer calls, one writer call of another corpus, one gpt-5.5 listwise call of another run
    const lines = [rec('gpt-5.4-writer', 'writer', ours[0]), rec('gpt-5.4-writer', 'writer', ours[1]), rec('gpt-5.4-writer', 'writer', 'elsewhere'), rec('gpt-5.5', 'listwise', 'another-run')];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = execFileSync(process.execPath, [path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js'), 'llm', 'plan', '--sample', '--writer', '--json', '--queries', '20', '--store', file], { encoding: 'utf8' });
    const rows = JSON.parse(out).rows as { stage: string; model: string; recorded: number | null; calls: number }[];
    const w = rows.find((r) => r.stage === 'writer')!;
    assert.is(w.calls, 2 * linked.size);
    assert.is(w.recorded, 2, 'only the keys of this corpus\'s writer requests');
    assert.is(rows.find((r) => r.stage === 'listwise' && r.model === 'gpt-5.5')!.recorded, null, 'another run\'s listwise records are not this run\'s');
    const md = execFileSync(process.execPath, [path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js'), 'llm', 'plan', '--sample', '--queries', '20', '--store', file], { encoding: 'utf8' });
    assert.match(md, /\| gpt-5\.5\* \| listwise \| 20 \| – \|/);
    assert.match(md, /eo llm plan --exact/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
