/** The four prompt files follow the paper's described protocol (roles, rules, layout, output contract, routine). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentMessages, loadAgenticPrompt } from '../lib/agent';
import { loadQueryWriterPrompt, queryWriterMessages } from '../lib/bench';
import { type DatasetRecord } from '../lib/data';
import { defaultJudgePromptPath, judgeMessages, loadJudgePrompt } from '../lib/judge';
import { listwiseMessages, loadListwisePrompt, parseRanking, type RerankCandidate } from '../lib/rerank';
import { repoRoot } from '../lib/util';

const FILES = ['lib/bench/prompts/query-writer.md', 'lib/rerank/prompts/listwise.md', 'lib/agent/prompts/agentic.md', 'lib/judge/prompts/judge.md'];

function dataset(id: string, longName: string, abstract: string): DatasetRecord {
  return {
    id, shortName: id.toUpperCase(), longName, abstract, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [],
  };
}
const WINDOW: RerankCandidate[] = ['a', 'b', 'c'].map((id, i) => ({ id, record: dataset(id, `Dataset ${id}`, `Summary of ${id}.`), retrievalScore: 1 - i / 10, retrievalRank: i + 1, scores: {} }) as unknown as RerankCandidate);

test('every prompt file says it was written from the paper description, not verbatim', () => {
  for (const f of FILES) {
    const raw = fs.readFileSync(path.join(repoRoot(), f), 'utf8');
    assert.match(raw, /WRITTEN FROM THE PAPER'S DESCRIPTION, NOT THE VERBATIM/, f);
    assert.not.match(raw, /RECONSTRUCTION/, f);
  }
});

test('query writer: instructions in the system message, the abstract alone in the user message', () => {
  const tpl = loadQueryWriterPrompt();
  assert.match(tpl.system, /starts with "I want to"/);
  assert.match(tpl.system, /at most 60 words/);
  assert.match(tpl.system, /region/);
  const [sys, user] = queryWriterMessages({ id: 'p', doi: null, title: 'T', abstract: 'Debris thickness in the Everest region.', year: null, venue: null, source: null, sources: [] }, tpl);
  assert.is(sys.role, 'system');
  assert.ok(user.content.includes('abstract of a scientific publication:\n\nDebris thickness in the Everest region.'));
  assert.match(user.content, /one research query/);
});

test('listwise: role and bullet rules in the system message, <query> then <candidates> with numbered items, top-K contract', () => {
  const [sys, user] = listwiseMessages(loadListwisePrompt(), { id: 'q', text: 'glacier debris' }, WINDOW);
  assert.match(sys.content, /^You are an expert Earth-science dataset retrieval reranker/);
  assert.match(sys.content, /- Return only ids of the given candidates; never invent an id\./);
  assert.match(sys.content, /top 3 most relevant/);
  assert.match(sys.content, /\{"ranked": \[3, 1, 5, \.\.\.\]\}/);
  assert.match(user.content, /^<query>glacier debris<\/query>\n\n<candidates>\n<candidate id="1">\n<title>A: Dataset a<\/title>\n<summary>Summary of a\.<\/summary>\n<\/candidate>/);
  assert.match(user.content, /<candidate id="3">[\s\S]*<\/candidates>/);
  // the contract's example parses
  assert.equal(parseRanking('{"ranked": [3, 1]}', 3).ranked, [3, 1]);
});

test('agentic: the listwise role and rules first, then the five-step routine with its tools', () => {
  const [sys, user] = agentMessages(loadListwisePrompt(), loadAgenticPrompt(), { id: 'q', text: 'glacier debris' }, WINDOW);
  assert.match(sys.content, /^You are an expert Earth-science dataset retrieval reranker/);
  const steps = [...sys.content.matchAll(/^(\d)\. /gm)].map((m) => m[1]);
  assert.equal(steps, ['1', '2', '3', '4', '5']);
  assert.match(sys.content, /1\. Search arXiv \(arxiv_search\)/);
  assert.match(sys.content, /3\. Search the web \(web_search\) to clarify candidates/);
  assert.match(sys.content, /5\. Output the ranked JSON/);
  assert.match(user.content, /^<query>glacier debris<\/query>/);
  assert.match(user.content, /\{"ranked": \[\.\.\.\]\} only\.$/);
});

test('judge: binary YES/NO on the same physical variable or phenomenon, from the query and shortName + abstract', () => {
  assert.ok(fs.existsSync(defaultJudgePromptPath()));
  const [sys, user] = judgeMessages(loadJudgePrompt(), 'I want sea ice', dataset('nsidc-0051', 'Sea Ice Concentrations', 'Passive microwave sea ice.'));
  assert.match(sys.content, /YES or NO/);
  assert.match(user.content, /<short_name>NSIDC-0051<\/short_name>/);
  assert.match(user.content, /<summary>Passive microwave sea ice\.<\/summary>/);
  assert.match(user.content, /same physical variable or phenomenon/);
});

test.run();
