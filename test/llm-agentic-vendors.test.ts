/**
 * The agentic rerank across all three vendors with the paper's entries (the paper could not run GPT-5.5
 * agentically): native tool calling through the real SDKs against local servers, one tool round then the ranked
 * JSON, the exact wire fields per vendor (tools, no temperature for GPT-5.5, max_completion_tokens vs max_tokens),
 * and the trace's tool calls.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agenticReranker, createLlmClient } from '../lib';
import { type AgentTool } from '../lib/agent';
import { type DatasetRecord } from '../lib/data';
import { defaultModelsFilePath, getModelConfig, loadModelsFile, memoryRecordStore } from '../lib/llm';
import { rerankBackbone, type BackboneList, type RerankCandidate } from '../lib/rerank';
import { hasToolResults, startFakeAnthropic, startFakeOpenAI } from './servers/fake-llm';

const ENV = { OPENAI_API_KEY: 'sk-test-openai-key-0000000000', ANTHROPIC_API_KEY: 'sk-ant-test-key-1111111111', DEEPSEEK_API_KEY: 'sk-deepseek-test-22222222' };
const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;

function dataset(id: string): DatasetRecord {
  return {
    id, shortName: id, longName: `dataset ${id}`, abstract: `About ${id}.`, doi: null, daac: 'T', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}
const LIST: BackboneList = { query: { id: 'q0', text: 'glacier debris thickness' }, candidates: Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, record: dataset(`d${i}`), retrievalScore: 10 - i, retrievalRank: i + 1, scores: {} }) as unknown as RerankCandidate) };
const ARXIV: AgentTool = {
  spec: { name: 'arxiv_search', description: 'Search arXiv', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  mode: 'offline',
  async run() {
    return { source: 'arxiv', items: [{ title: 'Debris-covered glaciers', snippet: 'Thickness from elevation change.' }] };
  },
};
/** First turn: call arxiv_search; after the tool result: the ranking. */
const script = (req: { body: any }) => (hasToolResults(req.body) ? { text: '{"ranked": [3, 1, 2]}' } : { toolCalls: [{ name: 'arxiv_search', arguments: { query: 'debris thickness' } }] });

for (const id of ['gpt-5.5', 'claude-opus-4-7', 'deepseek-v4-pro']) {
  test(`agentic ${id}: tool round then ranking, vendor wire format`, async () => {
    const anthropic = getModelConfig(id, MODELS).provider === 'anthropic';
    const srv = anthropic ? await startFakeAnthropic(script) : await startFakeOpenAI(script);
    try {
      const client = createLlmClient({ ...getModelConfig(id, MODELS), baseUrl: srv.url }, { mode: 'record', store: memoryRecordStore(), env: ENV, maxRetries: 0, log: () => {} });
      const out = await rerankBackbone(agenticReranker(client, { tools: [ARXIV] }), [LIST]);
      assert.equal(out.run.get('q0')!.slice(0, 3).map((e) => e.docId), ['d2', 'd0', 'd1']);
      const trace = out.traces.get('q0')![0];
      assert.is(trace.toolCalls.length, 1);
      assert.is(trace.toolCalls[0].name, 'arxiv_search');
      assert.is(srv.requests.length, 2);
      const first = srv.requests[0].body;
      if (anthropic) {
        assert.is(first.tools[0].name, 'arxiv_search');
        assert.ok(first.tools[0].input_schema);
        assert.is(first.temperature, 0);
        assert.is(typeof first.max_tokens, 'number');
        assert.not.ok('thinking' in first);
        assert.ok(srv.requests[1].body.messages.some((m: any) => Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result')));
      } else {
        assert.is(first.tools[0].function.name, 'arxiv_search');
        if (id === 'gpt-5.5') {
          assert.not.ok('temperature' in first, 'GPT-5.5: no temperature');
          assert.is(typeof first.max_completion_tokens, 'number');
          assert.not.ok('max_tokens' in first);
        } else {
          assert.is(first.temperature, 0);
          assert.is(typeof first.max_tokens, 'number');
        }
        assert.ok(srv.requests[1].body.messages.some((m: any) => m.role === 'tool'));
      }
    } finally {
      await srv.close();
    }
  });
}

test.run();
