// Score parts travel with a run (lib/metrics/run-parts.ts): a fused batch run carries each top result's normalised and
// raw BM25 / semantic scores and α (or RRF's terms), a run under the query rules also the rule that moved a dataset,
// a rerank backbone's run its raw scores; writeRunFiles writes them beside the run file as <id>.<split>.parts.json
// (and removes a stale one), without changing the run file or the list of files it returns.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { competitionRankOf, competitionRanks, minMaxNormalize, minMaxNormalizer } from '../lib/fuse';
import { readRunLabels, readRunPartsSidecar, readTrecRun, RUN_LABELS_FILE, runPartsFile, runScoreParts, sortRunEntries, writeRunFiles, RUN_PARTS_TOP_K, type Run } from '../lib/metrics';
import { rerankSystemRuns } from '../lib/rerank';
import { createSearchEngine, fuseBatch, searchBatch } from '../lib/search';
import type { CorpusScorer } from '../lib/retrieve';
import { readExplorerData } from '../lib/report';

function ds(id: string, longName: string, temporal: [string | null, string | null] = [null, null]): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: temporal[0], temporalEnd: temporal[1],
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

// 14 datasets, so that a top-10 leaves some out; seeded-free: the scores are closed-form in the index
const N = 14;
const corpus = makeCorpus(Array.from({ length: N }, (_, i) => ds(`C${String(i).padStart(2, '0')}-A`, `dataset ${i}`)), [], [], 'parts-toy');
const queries = [{ id: 'q1', text: 'first' }, { id: 'q2', text: 'second' }];
const semantic = queries.map((_, qi) => Float32Array.from({ length: N }, (_, i) => 0.2 + 0.05 * ((i * (qi + 3)) % N)));
const lexical = queries.map((_, qi) => Float32Array.from({ length: N }, (_, i) => ((i * (qi + 5)) % 7) * 1.5));

test('one dataset\'s normalised score and competition rank equal the whole-vector ones (ties, NaN, a constant vector)', () => {
  const v = Float32Array.from([0.3, 0.9, 0.3, NaN, -1, 0.9, 0.25]);
  const ranks = competitionRanks(v);
  v.forEach((x, i) => assert.is(competitionRankOf(v, x), ranks[i], `rank of ${i}`));
  const w = Float32Array.from([2, 7.5, 3, 7.5, 0]);
  const norm = minMaxNormalize(w);
  const one = minMaxNormalizer(w);
  w.forEach((x, i) => assert.is(one(x), norm[i], `normalised ${i}`));
  assert.is(minMaxNormalizer(Float32Array.from([4, 4]))(4), 0, 'a constant vector maps to 0');
});

test('a convex fused run carries each top result\'s normalised and raw parts and α; they add up to its score', () => {
  const alpha = 0.35;
  const { run } = fuseBatch({ method: 'convex', alpha }, queries, semantic, lexical, corpus);
  const parts = runScoreParts(run);
  assert.ok(parts, 'parts attached');
  queries.forEach((q, qi) => {
    const top = sortRunEntries(run.get(q.id)!, RUN_PARTS_TOP_K);
    assert.equal(Object.keys(parts![q.id]).sort(), top.map((e) => e.docId).sort(), 'exactly the top-10');
    const sem = minMaxNormalize(semantic[qi]);
    const lex = minMaxNormalize(lexical[qi]);
    for (const e of top) {
      const i = corpus.indexById.get(e.docId)!;
      const p = parts![q.id][e.docId];
      assert.is(p.alpha, alpha);
      assert.ok(Math.abs(p.semantic! - sem[i]) < 1e-6 && Math.abs(p.bm25! - lex[i]) < 1e-6, `${e.docId} normalised parts`);
      assert.ok(Math.abs(p.bm25Raw! - lexical[qi][i]) < 1e-6 && Math.abs(p.semanticRaw! - semantic[qi][i]) < 1e-6, `${e.docId} raw parts`);
      assert.ok(Math.abs(alpha * p.semantic! + (1 - alpha) * p.bm25! - e.score) < 1e-5, `${e.docId}: α·ŝ_sem + (1−α)·ŝ_lex = score`);
    }
  });
});

test('an RRF run carries each scorer\'s term 1/(k + rank), which add up to the fused score', () => {
  const { run } = fuseBatch({ method: 'rrf', k: 60 }, queries, semantic, lexical, corpus);
  const parts = runScoreParts(run)!;
  for (const e of sortRunEntries(run.get('q1')!, RUN_PARTS_TOP_K)) {
    const p = parts.q1[e.docId];
    assert.is(p.rrfK, 60);
    assert.is(p.alpha, undefined);
    assert.ok(Math.abs(p.semantic! + p.bm25! - e.score) < 1e-5, e.docId);
    // a term is 1/(60 + rank) with a whole rank ≥ 1
    for (const t of [p.semantic!, p.bm25!]) assert.ok(Math.abs(1 / t - 60 - Math.round(1 / t - 60)) < 1e-3 && Math.round(1 / t - 60) >= 1);
  }
});

test('writeRunFiles: the parts sidecar beside the run file, not in the returned list; a run without parts removes a stale one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-run-parts-'));
  try {
    const fused = fuseBatch({ method: 'convex', alpha: 0.5 }, queries, semantic, lexical, corpus).run;
    const qrels = new Map([['q1', new Map([['C03-A', 1]])], ['q2', new Map([['C05-A', 1]])]]);
    const files = writeRunFiles(dir, [{ id: 'hybrid', label: 'Hybrid', run: fused }], qrels, 'test');
    assert.equal(files.map((f) => path.basename(f)), ['hybrid.test.run', 'qrels.test.trec']);
    const side = readRunPartsSidecar(runPartsFile(files[0]));
    assert.ok(side);
    assert.is(side!.system, 'hybrid');
    assert.is(side!.split, 'test');
    assert.equal(side!.queries, runScoreParts(fused));
    // the TREC file is the run's, parts or not
    const back = readTrecRun(files[0]);
    assert.equal(back.get('q1')!.map((e) => e.docId), sortRunEntries(fused.get('q1')!, 100).map((e) => e.docId));
    const plain: Run = new Map([...fused].map(([q, e]) => [q, e.map((x) => ({ ...x }))]));
    assert.is(runScoreParts(plain), undefined, 'a copied run carries no parts');
    writeRunFiles(dir, [{ id: 'hybrid', label: 'Hybrid', run: plain }], qrels, 'test');
    assert.not.ok(fs.existsSync(runPartsFile(files[0])), 'stale sidecar removed');
    // the labels beside the run files: a later call (another split, another table) adds to them, and the explorer shows them
    writeRunFiles(dir, [{ id: 'bm25', label: 'BM25', run: plain }], qrels, 'train');
    assert.equal(readRunLabels(dir), { hybrid: 'Hybrid', bm25: 'BM25' });
    const data = readExplorerData(dir, { labels: { bm25: 'BM25 (caller)' } });
    assert.equal(Object.fromEntries(data!.systems.map((x) => [x.id, x.label])), { bm25: 'BM25 (caller)', hybrid: 'Hybrid' }, 'recorded labels, the caller\'s first');
    fs.writeFileSync(path.join(dir, RUN_LABELS_FILE), '{not json');
    assert.equal(readRunLabels(dir), {}, 'an unreadable labels file gives ids, not an error');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('searchBatch with the query rules: a dataset outside the asked period carries the rule and its factor', async () => {
  // C0 ends 1999 (outside "2010 to 2015"), C1 covers it; both match the query words equally
  const c = makeCorpus([ds('C0-A', 'sea ice extent', ['1990-01-01', '1999-12-31']), ds('C1-A', 'sea ice extent', ['2005-01-01', '2020-12-31']), ds('C2-A', 'ozone column')], [], [], 'rules-toy');
  const scorer = (id: string): CorpusScorer => ({ id, label: id, async scoreBatch(texts) { return texts.map(() => Float32Array.from(c.datasets, (d) => (/sea ice/.test(d.longName) ? 1 : 0.1))); } });
  const engine = createSearchEngine(c, { lexical: scorer('bm25'), semantic: scorer('sem'), fusion: { method: 'convex', alpha: 0.5 }, identifierRule: { mode: 'off' } });
  const { run } = await searchBatch(engine, [{ id: 'q', text: 'sea ice extent from 2010 to 2015' }], { rules: true, now: new Date('2024-01-01T00:00:00Z') });
  const parts = runScoreParts(run)!.q;
  assert.is(parts['C0-A'].factor, 0.5);
  assert.match(parts['C0-A'].constraints!.join(' '), /ends 1999-12-31, before the asked period 2010-01-01\.\.2015-12-31 \(×0\.5\)/);
  assert.is(parts['C1-A'].constraints, undefined, 'covers the period: not moved');
  assert.is(parts['C1-A'].alpha, 0.5);
  assert.ok(Math.abs(parts['C0-A'].factor! * (0.5 * parts['C0-A'].semantic! + 0.5 * parts['C0-A'].bm25!) - run.get('q')!.find((e) => e.docId === 'C0-A')!.score) < 1e-6);
});

test('rerank system runs: a backbone run carries its raw scores and α, a reranked run also the retrieval rank', () => {
  const cand = (id: string, r: number) => ({ id, record: corpus.datasets[corpus.indexById.get(id)!], retrievalScore: 1 - r / 10, retrievalRank: r, scores: { bm25: 10 - r, semantic: 0.9 - r / 100, fused: 1 - r / 10 } });
  const lists = [{ query: { id: 'q1', text: 'first' }, candidates: [cand('C00-A', 1), cand('C01-A', 2), cand('C02-A', 3)] }];
  const backbone = { id: 'strong', label: 'Strong', alpha: 0.4, lists, trainLists: [] };
  const reranked: Run = new Map([['q1', [{ docId: 'C02-A', score: 3 }, { docId: 'C00-A', score: 2 }, { docId: 'C01-A', score: 1 }]]]);
  const runs = rerankSystemRuns([backbone] as never, [{ backbone: 'strong', reranker: 'llm', label: 'LLM', reranked: { run: reranked } }] as never);
  assert.equal(runScoreParts(runs[0].run)!.q1['C01-A'], { bm25Raw: 8, semanticRaw: 0.88, alpha: 0.4 });
  assert.equal(runScoreParts(runs[1].run)!.q1['C02-A'], { bm25Raw: 7, semanticRaw: 0.87, alpha: 0.4, retrievalRank: 3 });
});

test.run();
