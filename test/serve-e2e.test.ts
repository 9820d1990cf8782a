// End-to-end: the real search service on the SAMPLE snapshot (BM25 + USE-lite cosine) on 127.0.0.1, driven by
// headless Debian chromium through playwright-core (executablePath; nothing downloaded). Writes a screenshot to
// test-output/serve-e2e.png.
// run-tests: not beside notebook.test.ts (it embeds the sample into the repository's embedding cache, which the
// notebooks write too)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { createSearchServer, loadSearchEngine, loadSnapshot } from '../lib';
import { chromiumExecutable } from '../lib/report';
import { repoRoot } from '../lib/util';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUT = path.join(repoRoot(), 'test-output');

test('type a query, see router actions and datasets, follow a result, refuse markup', async () => {
  if (!fs.existsSync(chromiumExecutable())) throw new Error(`chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
  const corpus = loadSnapshot({ sample: true });
  const pipeline = await loadSearchEngine(corpus, { semantic: 'use-lite', alpha: 0.3, sample: true });
  const app = await createSearchServer(pipeline);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const external: string[] = [];
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1') return route.continue();
      external.push(u.href);
      return route.abort();
    });

    await page.goto(base + '/');
    await page.fill('#q', 'show me aerosol optical depth over India in 2019');
    await Promise.all([page.waitForURL(/\?q=/), page.press('#q', 'Enter')]);
    await page.waitForSelector('#results .result');
    const results = await page.$$eval('#results .result', (els) => els.map((e) => ({ id: e.getAttribute('data-id'), stage: e.getAttribute('data-stage'), text: e.textContent ?? '' })));
    assert.ok(results.length >= 3, `${results.length} results`);
    for (const r of results) {
      const rec = corpus.datasets[corpus.indexById.get(r.id ?? '') ?? -1];
      assert.ok(rec, `result ${r.id} is a dataset of the corpus`);
      assert.ok(rec.daac.length > 0 && r.text.includes(rec.daac), `result ${r.id} shows its DAAC ${rec.daac}: ${r.text.slice(0, 200)}`);
      assert.match(r.text, /BM25(?: \+ vocabulary expansion)? contributes/, 'why-line shown');
    }
    const actions = await page.$$eval('#router-actions .action', (els) => els.map((e) => ({ tool: e.getAttribute('data-tool'), href: e.querySelector('a.action-link')?.getAttribute('href') ?? '' })));
    const wv = actions.find((a) => a.tool === 'worldview');
    assert.ok(wv, `worldview action among ${JSON.stringify(actions.map((a) => a.tool))}`);
    const u = new URL(wv!.href);
    assert.is(u.hostname, 'worldview.earthdata.nasa.gov');
    assert.is(u.searchParams.get('t'), '2019-07-02-T00:00:00Z');
    assert.is(u.searchParams.get('v')!.split(',').length, 4);
    const landing = await page.$$eval('#results .result .links a', (els) => els.map((e) => e.getAttribute('href') ?? ''));
    assert.ok(landing.length > 0 && landing.every((h) => /^https:\/\//.test(h)), 'external links are absolute https');

    fs.mkdirSync(OUT, { recursive: true });
    const shot = path.join(OUT, 'serve-e2e.png');
    await page.screenshot({ path: shot, fullPage: false });
    assert.ok(fs.statSync(shot).size > 10_000, 'screenshot written');

    // follow the first result's local link to its record
    const firstId = results[0].id!;
    await Promise.all([page.waitForURL(/\/dataset\//), page.click('#results .result a.detail-link')]);
    await page.waitForSelector('#dataset');
    assert.is(await page.getAttribute('#dataset', 'data-id'), firstId);
    assert.match((await page.textContent('#dataset')) ?? '', /Temporal coverage/);
    await page.screenshot({ path: path.join(OUT, 'serve-e2e-dataset.png') });

    // markup typed into the box: a 400 page that shows a message, runs nothing, echoes nothing
    await page.fill('#q', '<script>alert(1)</script>');
    const [resp] = await Promise.all([page.waitForNavigation(), page.press('#q', 'Enter')]);
    assert.is(resp?.status(), 400);
    assert.match((await page.textContent('#error')) ?? '', /HTML or script markup/);
    assert.not.match(await page.content(), /<script>alert/);
    assert.equal(dialogs, []);
    assert.equal(external, [], 'the page loads nothing from outside');
  } finally {
    await browser?.close();
    await app.close();
    pipeline.dispose();
  }
});

test.run();
