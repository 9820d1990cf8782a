// The run explorer (lib/report/explorer.ts): from small run files and qrels in a notebook folder, the report site
// writes <name>/explorer.html and links it from the index; its data (AP, RR, top-10s, rank moves) follows the runs;
// headless chromium opens it from file:// (nothing fetched from the network), picks two systems, clicks a query and
// finds both top-10s with the labelled datasets marked, the score parts and judge labels; the DAAC filter keeps
// only matching queries. A run that carries score parts gets a parts sidecar beside its run file, and the judge's
// verdicts come from a judge cache: clicking a query shows both per result. Screenshots: test-output/explorer-plot.png,
// test-output/explorer-query.png, test-output/explorer-parts.png.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { buildReportSite, EXPLORER_FILE, explorerData, judgeLabelsFromCache, readExplorerData, type ExplorerMeta } from '../lib/report';
import { openJudgeCache } from '../lib/judge';
import { runPartsFile, setRunScoreParts, writeRunFiles, type Qrels, type Run } from '../lib/metrics';
import { launchChromium } from './helpers/report-pages';

const OUT = path.join(__dirname, '..', 'test-output');

// Three queries over twelve datasets d01..d12. BM25 finds q1's label first, cosine third; on q2 cosine wins.
const docs = Array.from({ length: 12 }, (_, i) => `d${String(i + 1).padStart(2, '0')}`);
const ranked = (order: string[]) => order.map((d, i) => ({ docId: d, score: 10 - i * 0.5 }));
const qrels: Qrels = new Map([
  ['q1', new Map([['d01', 1]])],
  ['q2', new Map([['d05', 1], ['d06', 1]])],
  ['q3', new Map([['d12', 1]])],
]);
const bm25: Run = new Map([
  ['q1', ranked(docs)],
  ['q2', ranked(['d01', 'd02', 'd03', 'd05', ...docs.filter((d) => !['d01', 'd02', 'd03', 'd05'].includes(d))])],
  ['q3', ranked(docs.slice(0, 11))], // d12 not retrieved
]);
const cosine: Run = new Map([
  ['q1', ranked(['d02', 'd03', 'd01', ...docs.filter((d) => !['d01', 'd02', 'd03'].includes(d))])],
  ['q2', ranked(['d05', 'd06', ...docs.filter((d) => d !== 'd05' && d !== 'd06')])],
  ['q3', ranked(['d12', ...docs.slice(0, 11)])],
]);
const meta: ExplorerMeta = {
  queries: { q1: { text: 'sea surface temperature', style: 'keywords' }, q2: { text: 'aerosol optical depth over India', style: 'research question' }, q3: { text: 'OMI NO2 L3', style: 'identifier' } },
  datasets: Object.fromEntries(docs.map((d, i) => [d, { title: `Dataset ${d}`, daac: i < 6 ? 'PO.DAAC' : 'GES DISC' }])),
  parts: { bm25: { q2: { d05: { bm25: 7.25, semantic: 0.61, alpha: 0.3, constraints: ['period matches'] } } } },
  judge: { q2: { d05: 'relevant', d01: 'not relevant' } },
  labels: { bm25: 'BM25', 'cosine-base': 'Cosine (base)' },
};

function fixture(root: string): string {
  const dir = path.join(root, '02-baselines');
  fs.mkdirSync(dir, { recursive: true });
  writeRunFiles(dir, [{ id: 'bm25', label: 'BM25', run: bm25 }, { id: 'cosine-base', label: 'Cosine (base)', run: cosine }], qrels, 'test');
  return dir;
}

test('explorer data: AP, RR, top-10 and ranks follow the runs; meta fills texts, DAACs, parts and judge labels', () => {
  const data = explorerData('nb', [{ id: 'bm25', split: 'test', run: bm25 }, { id: 'cosine-base', split: 'test', run: cosine }], new Map([['test', qrels]]), meta);
  assert.equal(data.queries.map((q) => [q.id, q.stratum, q.daacs, q.relevant]), [
    ['q1', '1', ['PO.DAAC'], ['d01']],
    ['q2', '2', ['PO.DAAC'], ['d05', 'd06']],
    ['q3', '1', ['GES DISC'], ['d12']],
  ]);
  const [b, c] = data.systems;
  assert.is(b.label, 'BM25');
  assert.is(b.RR.q1, 1);
  assert.ok(Math.abs(c.RR.q1 - 1 / 3) < 1e-12);
  // bm25 on q2: d05 at 4, d06 at 6 → AP = (1/4 + 2/6) / 2.
  assert.ok(Math.abs(b.AP.q2 - (1 / 4 + 2 / 6) / 2) < 1e-12);
  assert.is(b.AP.q3, 0);
  assert.is(b.top.q1.length, 10);
  assert.equal(b.top.q1.filter((e) => e.rel).map((e) => e.id), ['d01']);
  assert.equal(b.top.q2[3], { id: 'd05', score: 8.5, rel: true, parts: meta.parts!.bm25.q2.d05, judge: 'relevant' });
  assert.is(c.ranks.q1.d01, 3);
  assert.is(b.ranks.q3.d12, undefined, 'not retrieved: no rank');
  assert.is(c.ranks.q3.d12, 1);
  assert.throws(() => explorerData('nb', [], new Map(), {}, { topK: 20, depth: 10 }), /topK/);
});

test('run explorer page from file://: two systems, a clicked query shows both top-10s with labels marked', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-explorer-'));
  let browser: Browser | null = null;
  try {
    const dir = fixture(root);
    assert.is(readExplorerData(path.join(root, 'nothing-here')), null);
    const site = buildReportSite(root, { nbconvert: false, mathjaxDir: null, explorerMeta: (name) => (name === '02-baselines' ? meta : null) });
    assert.is(site.notebooks[0].explorer, `02-baselines/${EXPLORER_FILE}`);
    assert.match(fs.readFileSync(site.index, 'utf8'), `href="02-baselines/${EXPLORER_FILE}"`);
    const file = path.join(dir, EXPLORER_FILE);
    const html = fs.readFileSync(file, 'utf8');
    assert.not.match(html, /<script[^>]*src=/, 'no external scripts');

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    const external: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/*', (route) => {
      const u = route.request().url();
      if (u.startsWith('file:') || u.startsWith('data:')) return route.continue();
      external.push(u);
      return route.abort();
    });
    await page.goto(`file://${file}`);
    await page.selectOption('#sys-a', 'bm25');
    await page.selectOption('#sys-b', 'cosine-base');
    await page.selectOption('#metric', 'RR');
    assert.is(await page.locator('#plot rect.q').count(), 3);
    // Sorted by ΔRR = bm25 − cosine: q1 (1 − 1/3), q2 (1/4 − 1), q3 (0 − 1).
    assert.equal(await page.locator('#plot rect.q').evaluateAll((els) => els.map((e) => e.getAttribute('data-q'))), ['q1', 'q2', 'q3']);
    assert.match(((await page.textContent('#summary')) ?? ''), /better on 1, B \(Cosine \(base\)\) better on 2/);
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'explorer-plot.png'), fullPage: true });

    await page.click('#plot rect.q[data-q="q2"]');
    await page.waitForSelector('#top-a table.top');
    assert.match(((await page.textContent('#query-title')) ?? ''), /aerosol optical depth over India/);
    for (const side of ['#top-a', '#top-b']) assert.is(await page.locator(`${side} tr.result`).count(), 10, `${side} shows a top-10`);
    assert.equal(await page.locator('#top-a tr.hit').evaluateAll((els) => els.map((e) => e.getAttribute('data-dataset'))), ['d05', 'd06']);
    assert.equal(await page.locator('#top-b tr.hit').evaluateAll((els) => els.map((e) => e.getAttribute('data-dataset'))), ['d05', 'd06']);
    const d05 = ((await page.textContent('#top-a tr[data-dataset="d05"]')) ?? '');
    assert.match(d05, /✓/);
    assert.match(d05, /BM25 7\.250 · semantic 0\.610 · α 0\.3 · period matches/);
    assert.match(d05, /↓3 \(its #1\)/, 'd05 is #4 in BM25, #1 in cosine');
    assert.match(d05, /relevant/);
    assert.match(((await page.textContent('#top-b tr[data-dataset="d05"]')) ?? ''), /↑3 \(its #4\)/);
    await page.screenshot({ path: path.join(OUT, 'explorer-query.png'), fullPage: true });

    await page.selectOption('#f-daac', 'GES DISC');
    assert.equal(await page.locator('#plot rect.q').evaluateAll((els) => els.map((e) => e.getAttribute('data-q'))), ['q3']);
    await page.selectOption('#f-daac', '');
    await page.selectOption('#f-style', 'keywords');
    assert.is(await page.locator('#plot rect.q').count(), 1);
    await page.selectOption('#f-style', '');
    await page.selectOption('#f-stratum', '2');
    assert.equal(await page.locator('#plot rect.q').evaluateAll((els) => els.map((e) => e.getAttribute('data-q'))), ['q2']);
    assert.equal(errors, []);
    assert.equal(external, []);
    for (const f of ['explorer-plot.png', 'explorer-query.png']) assert.ok(fs.statSync(path.join(OUT, f)).size > 5_000, `${f} written`);
  } finally {
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// A hybrid that puts q2's labels first, with the parts its fusion recorded for them (as fuseBatch attaches them).
const hybrid: Run = new Map([
  ['q1', ranked(['d01', ...docs.filter((d) => d !== 'd01')])],
  ['q2', ranked(['d06', 'd05', ...docs.filter((d) => d !== 'd05' && d !== 'd06')])],
  ['q3', ranked(['d12', ...docs.slice(0, 11)])],
]);
setRunScoreParts(hybrid, {
  q2: {
    d06: { bm25: 0.9, semantic: 0.95, bm25Raw: 11.5, semanticRaw: 0.72, alpha: 0.263 },
    d05: { bm25: 0.5, semantic: 0.8, bm25Raw: 7.25, semanticRaw: 0.61, alpha: 0.263, constraints: ['ends 1999-12-31, before the asked period 2010-01-01..2015-12-31 (×0.5)'], factor: 0.5 },
  },
});

test('run explorer from file://: parts from the run\'s sidecar and the judge cache\'s verdicts per result', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-explorer-parts-'));
  let browser: Browser | null = null;
  try {
    const dir = fixture(root);
    const [hybridFile] = writeRunFiles(dir, [{ id: 'hybrid', label: 'Hybrid', run: hybrid }], qrels, 'test');
    assert.ok(fs.existsSync(runPartsFile(hybridFile)), 'the hybrid run carries parts: sidecar written');
    assert.not.ok(fs.existsSync(runPartsFile(path.join(dir, 'bm25.test.run'))), 'bm25 carries none: no sidecar');
    // the judge's verdicts as the P@K judge caches them (by query text), for two judged pairs and one unreadable answer
    const cacheFile = path.join(root, 'records.judge-cache.jsonl');
    const cache = openJudgeCache(cacheFile);
    const verdict = (datasetId: string, relevant: boolean | null) => cache.append({
      key: `k-${datasetId}`, judgeId: 'judge-model@m#abc', query: meta.queries!.q2.text!, datasetId, relevant, kind: relevant === null ? 'failed' : 'exact',
      thinkStripped: false, text: relevant === null ? 'maybe' : relevant ? 'YES' : 'NO', model: 'm', costUsd: 0, recordKey: 'r', timestamp: '2026-01-01T00:00:00Z',
    });
    verdict('d06', true);
    verdict('d05', false);
    verdict('d01', null);
    const judge = judgeLabelsFromCache(cacheFile, Object.entries(meta.queries!).map(([id, q]) => ({ id, text: q.text! })));
    assert.equal(judge, { q2: { d06: 'YES', d05: 'NO', d01: 'unreadable' } });
    const pageMeta: ExplorerMeta = { ...meta, parts: undefined, judge, labels: { ...meta.labels, hybrid: 'Hybrid' } };
    const data = readExplorerData(dir, pageMeta)!;
    const h = data.systems.find((s) => s.id === 'hybrid')!;
    assert.equal(h.top.q2.slice(0, 2).map((e) => [e.id, e.parts?.bm25Raw, e.judge]), [['d06', 11.5, 'YES'], ['d05', 7.25, 'NO']]);
    assert.is(data.systems.find((s) => s.id === 'bm25')!.top.q2[3].parts, undefined, 'no sidecar, no parts');

    buildReportSite(root, { nbconvert: false, mathjaxDir: null, explorerMeta: (name) => (name === '02-baselines' ? pageMeta : null) });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${path.join(dir, EXPLORER_FILE)}`);
    await page.selectOption('#sys-a', 'hybrid');
    await page.selectOption('#sys-b', 'bm25');
    await page.click('#plot rect.q[data-q="q2"]');
    await page.waitForSelector('#top-a table.top');
    const d05 = page.locator('#top-a tr[data-dataset="d05"]');
    assert.is(await d05.locator('.score-parts').textContent(), 'BM25 0.500 (raw 7.250) · semantic 0.800 (raw 0.610) · α 0.263 · ends 1999-12-31, before the asked period 2010-01-01..2015-12-31 (×0.5)');
    assert.is(await page.locator('#top-a tr[data-dataset="d06"] .score-parts').textContent(), 'BM25 0.900 (raw 11.500) · semantic 0.950 (raw 0.720) · α 0.263');
    // the judge column: header on both sides (both show judged datasets), verdict in the last cell
    assert.equal(await page.locator('#top-a th').evaluateAll((els) => els.map((e) => e.textContent)), ['#', 'dataset', 'score', 'vs BM25', 'judge']);
    assert.is(await d05.locator('td').last().textContent(), 'NO');
    assert.is(await page.locator('#top-a tr[data-dataset="d06"] td').last().textContent(), 'YES');
    assert.is(await page.locator('#top-b tr[data-dataset="d01"] td').last().textContent(), 'unreadable');
    assert.is(await page.locator('#top-b .score-parts').count(), 0, 'BM25 has no parts sidecar');
    assert.match((await page.textContent('body')) ?? '', /score parts as its run recorded them/);
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'explorer-parts.png'), fullPage: true });
    assert.ok(fs.statSync(path.join(OUT, 'explorer-parts.png')).size > 5_000);
    assert.equal(errors, []);
  } finally {
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('run explorer of a notebook with runs of two splits (05\'s shape): systems keyed by id and split, B starts as another system of A\'s split, a clicked query says its split', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-explorer-splits-'));
  let browser: Browser | null = null;
  try {
    const dir = path.join(root, '05-fusion');
    fs.mkdirSync(dir, { recursive: true });
    // the training split: four queries t1..t4, where the hybrid and BM25 rank alike
    const trainQrels: Qrels = new Map(['t1', 't2', 't3', 't4'].map((q, i) => [q, new Map([[docs[i], 1]])]));
    const trainRun: Run = new Map(['t1', 't2', 't3', 't4'].map((q) => [q, ranked(docs)]));
    writeRunFiles(dir, [{ id: 'bm25', label: 'BM25', run: trainRun }, { id: 'hybrid', label: 'NN-SSC + BM25', run: trainRun }], trainQrels, 'train');
    writeRunFiles(dir, [{ id: 'bm25', label: 'BM25', run: bm25 }, { id: 'hybrid', label: 'NN-SSC + BM25', run: cosine }], qrels, 'test');
    buildReportSite(root, { nbconvert: false, mathjaxDir: null, explorerMeta: (name) => (name === '05-fusion' ? { ...meta, labels: { bm25: 'BM25', hybrid: 'NN-SSC + BM25' } } : null) });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${path.join(dir, EXPLORER_FILE)}`);
    const options = await page.locator('#sys-a option').evaluateAll((els) => els.map((e) => [(e as HTMLOptionElement).value, e.textContent]));
    assert.equal([...options].sort(), [['bm25@test', 'BM25 (test)'], ['bm25@train', 'BM25 (train)'], ['hybrid@test', 'NN-SSC + BM25 (test)'], ['hybrid@train', 'NN-SSC + BM25 (train)']]);
    // the default pair: two systems of one split, never a system with itself
    const [a0, b0] = [await page.inputValue('#sys-a'), await page.inputValue('#sys-b')];
    assert.is(a0.split('@')[1], b0.split('@')[1]);
    assert.is.not(a0, b0);
    // NN-SSC + BM25 (test) against BM25 (test): the three test queries, not the four training ones
    await page.selectOption('#sys-a', 'hybrid@test');
    await page.selectOption('#sys-b', 'bm25@test');
    assert.match((await page.textContent('#summary')) ?? '', /^3 queries: A \(NN-SSC \+ BM25\)/);
    await page.click('#plot rect.q[data-q="q2"]');
    await page.waitForSelector('#top-a table.top');
    assert.match((await page.textContent('#detail .parts')) ?? '', /^split test · /);
    await page.selectOption('#sys-a', 'hybrid@train');
    await page.selectOption('#sys-b', 'bm25@train');
    assert.match((await page.textContent('#summary')) ?? '', /^4 queries: /);
    await page.selectOption('#sys-b', 'bm25@test');
    assert.match((await page.textContent('#summary')) ?? '', /A is a run of the train split and B of the test split/);
    assert.is(await page.locator('#plot rect.q').count(), 0);
    assert.equal(errors, []);
  } finally {
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
