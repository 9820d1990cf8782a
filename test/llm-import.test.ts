/**
 * `eo llm import`: released payload rows (one per query and model) written into a record store under the keys our
 * listwise reranker computes, so the rerank tables re-derive in replay mode with no key; rows that do not match our
 * benchmark (query, model, candidate set, answer) are counted and reported, not used. Fixture:
 * test/fixtures/llm-payloads.jsonl (3 usable rows in three shapes, 4 unusable ones).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, listwiseReranker, type EoError } from '../lib';
import { type DatasetRecord } from '../lib/data';
import { defaultModelsFilePath, getModelConfig, loadModelsFile, openRecordStore } from '../lib/llm';
import {
  describePayloadFields, importRerankPayloads, payloadFieldMap, rerankBackbone, type BackboneList,
  type RerankCandidate
} from '../lib/rerank';

const FIXTURE = path.join(__dirname, 'fixtures', 'llm-payloads.jsonl');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-import-'));
const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;

function dataset(id: string, longName: string): DatasetRecord {
  return {
    id, shortName: id.toUpperCase(), longName, abstract: `About ${longName}.`, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [],
  };
}
const LISTS: BackboneList[] = Array.from({ length: 3 }, (_, q) => ({
  query: { id: `q${q}`, text: `query ${q}` },
  candidates: Array.from({ length: 12 }, (_, i) => ({ id: `d${q}-${i}`, record: dataset(`d${q}-${i}`, `dataset ${q} ${i} <x>`), retrievalScore: 12 - i, retrievalRank: i + 1, scores: {} }) as unknown as RerankCandidate),
}));

test('field mapping: defaults printed, overrides applied, unknown fields refused', () => {
  const lines = describePayloadFields(payloadFieldMap(['queryId=qid', 'response=output.text']));
  assert.ok(lines.includes('queryId     ← qid'));
  assert.ok(lines.includes('response    ← output.text'));
  assert.ok(lines.includes('model       ← model'));
  try {
    payloadFieldMap(['color=red']);
    assert.unreachable();
  } catch (e) {
    assert.is((e as EoError).code, 'INVALID_ARGUMENT');
  }
});

test('import: three usable rows (ids, text match + reversed candidates, request titles), four reported; replay re-derives the ranking', async () => {
  const store = path.join(TMP, 'imported.jsonl');
  const r = importRerankPayloads({ file: FIXTURE, lists: LISTS, models: MODELS, store });
  assert.is(r.rows, 7);
  assert.is(r.imported, 3);
  assert.is(r.remapped, 1);
  assert.equal(r.skipped, { malformed: 0, 'unknown-query': 1, 'unknown-model': 1, 'candidates-differ': 1, 'unparseable-answer': 1 });
  assert.equal(r.examples.map((e) => [e.line, e.reason]), [[4, 'unknown-query'], [5, 'unknown-model'], [6, 'candidates-differ'], [7, 'unparseable-answer']]);
  assert.equal(r.byModel, { 'gpt-5.5': 1, 'claude-opus-4-7': 1, 'o4-mini': 1 });

  const rank = async (id: string, q: number) => {
    const client = createLlmClient(getModelConfig(id, MODELS), { mode: 'replay', store, env: {}, log: () => {} });
    const out = await rerankBackbone(listwiseReranker(client), [LISTS[q]]);
    return out.run.get(`q${q}`)!.map((e) => e.docId);
  };
  assert.equal((await rank('gpt-5.5', 0)).slice(0, 4), ['d0-1', 'd0-0', 'd0-2', 'd0-3']);
  // the payload listed the window reversed: its ids 1, 2 are our d1-9, d1-8
  assert.equal((await rank('claude-opus-4-7', 1)).slice(0, 3), ['d1-9', 'd1-8', 'd1-0']);
  assert.equal((await rank('o4-mini', 2)).slice(0, 3), ['d2-4', 'd2-3', 'd2-0']);
  const rec = openRecordStore(store).records().find((x) => x.configId === 'claude-opus-4-7')!;
  assert.is(rec.imported!.remapped, true);
  assert.is(rec.imported!.originalText, '{"ranked": [1, 2]}');
  assert.equal(rec.response.usage, { inputTokens: 1900, outputTokens: 12 });

  // importing again writes nothing
  const again = importRerankPayloads({ file: FIXTURE, lists: LISTS, models: MODELS, store });
  assert.is(again.imported, 0);
  assert.is(again.alreadyRecorded, 3);
  assert.is(openRecordStore(store).size(), 3);
});

test('a dry run counts without writing; a different window size changes the keys (candidates then differ)', () => {
  const store = path.join(TMP, 'dry.jsonl');
  const r = importRerankPayloads({ file: FIXTURE, lists: LISTS, models: MODELS, store, dryRun: true });
  assert.is(r.imported, 3);
  assert.not.ok(fs.existsSync(store));
  const r5 = importRerankPayloads({ file: FIXTURE, lists: LISTS, models: MODELS, store, dryRun: true, window: 5 });
  assert.is(r5.imported, 0);
  assert.is(r5.skipped['candidates-differ'], 5); // rows 1, 2, 3, 6 and 7 all list 10 candidates
});

test.run();
