// The run explorer (lib/report/explorer.ts): from small run files and qrels in a notebook folder, the report site
// writes <name>/explorer.html and links it from the index; its data (AP, RR, top-10s, rank moves) follows the runs;
// headless chromium opens it from file:// (nothing fetched from the network), picks two systems, clicks a query and
// finds both top-10s with the labelled datasets marked, the score parts and judge labels; the DAAC filter keeps
// only matching queries. Screenshots: test-output/explorer-plot.png, test-output/explorer-query.png.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { buildReportSite, EXPLORER_FILE, explorerData, readExplorerData, type ExplorerMeta } from '../lib/report';
import { writeRunFiles, type Qrels, type Run } from '../lib/metrics';
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

test.run();
