// End-to-end: facets, filters and removable chips of the search page. The real service on the SAMPLE snapshot (BM25
// alone: no embeddings) on 127.0.0.1, driven by headless Debian chromium through playwright-core (executablePath;
// nothing downloaded): search, click a facet, remove a filter chip, remove the parsed period, filter by the form,
// then a bad filter. Screenshots under test-output/ (gitignored): serve-facets-1-results.png … -4-form.png.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createSearchServer, loadSnapshot } from '../lib';
import { chromiumExecutable } from '../lib/report';
import { bm25Scorer, buildBm25 } from '../lib/retrieve';
import { createSearchEngine } from '../lib/search';
import { repoRoot } from '../lib/util';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUT = path.join(repoRoot(), 'test-output');

const resultDaacs = (page: Page) => page.$$eval('#results .result', (els) => els.map((e) => (e.querySelector('.meta')?.textContent ?? '').split(' · ')[0].trim()));

test('search, click a facet, remove chips, filter by the form; facets and chips follow; a bad filter is a 400 page', async () => {
  if (!fs.existsSync(chromiumExecutable())) throw new Error(`chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
  const corpus = loadSnapshot({ sample: true });
  const engine = createSearchEngine(corpus, { lexical: bm25Scorer(buildBm25(corpus)), semantic: null, source: 'given' });
  const app = await createSearchServer(engine, { now: () => new Date('2026-11-30T00:00:00Z') });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    const external: string[] = [];
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1') return route.continue();
      external.push(u.href);
      return route.abort();
    });
    fs.mkdirSync(OUT, { recursive: true });

    // 1. search: facets beside the results, the parsed period and place as chips
    await page.goto(base + '/');
    await page.fill('#q', 'aerosol optical depth over India since 2015');
    await Promise.all([page.waitForURL(/\?q=/), page.press('#q', 'Enter')]);
    await page.waitForSelector('#facets');
    const providers = await page.$$eval('#facets section[data-facet="provider"] a.facet-link', (els) => els.map((e) => ({ value: e.getAttribute('data-value') ?? '', count: Number(e.parentElement?.querySelector('.count')?.textContent) })));
    assert.ok(providers.length >= 2, `provider facet values: ${JSON.stringify(providers)}`);
    for (const f of ['platform', 'instrument', 'processing_level_id', 'period']) assert.ok(await page.$(`#facets section[data-facet="${f}"] a.facet-link`), `${f} facet shown`);
    const before = await resultDaacs(page);
    assert.ok(new Set(before).size >= 2, `results from several DAACs: ${before}`);
    assert.match((await page.textContent('.chip[data-kind="period"]')) ?? '', /period 2015-01-01 – 2026-11-30/);
    assert.match((await page.textContent('.chip[data-kind="place"]')) ?? '', /place India/);
    await page.screenshot({ path: path.join(OUT, 'serve-facets-1-results.png'), fullPage: false });

    // 2. click a provider facet that is not the only one: every result is of it, the filter is a chip, the facet is active
    const pick = providers[1];
    await Promise.all([page.waitForURL(/provider=/), page.click(`#facets section[data-facet="provider"] a.facet-link[data-value="${pick.value}"]`)]);
    await page.waitForSelector('.chip.filter[data-kind="provider"]');
    const after = await resultDaacs(page);
    assert.ok(after.length > 0 && after.every((d) => d === pick.value), `after the ${pick.value} facet: ${after}`);
    assert.is(after.length, Math.min(10, pick.count), 'as many results as the facet counted (up to k)');
    assert.match((await page.textContent('#facets section[data-facet="provider"] li.active')) ?? '', new RegExp(pick.value));
    assert.match((await page.textContent('#filter-effect')) ?? '', /filters removed \d+ matching datasets/);
    assert.is(await page.inputValue('#f-provider'), pick.value, 'the filter input shows the active filter');
    await page.screenshot({ path: path.join(OUT, 'serve-facets-2-facet.png'), fullPage: false });

    // 3. remove the parsed period chip: the URL ignores it, the chip turns into "restore", the filter stays
    await Promise.all([page.waitForURL(/ignore=period/), page.click('.chip[data-kind="period"] a.remove')]);
    await page.waitForSelector('.chip.ignored[data-kind="period"] a.restore');
    assert.ok(await page.$('.chip.filter[data-kind="provider"]'), 'the provider filter survives removing a chip');
    assert.ok(await page.$('.chip.parsed[data-kind="place"]:not(.ignored)'), 'the place still applies');
    await page.screenshot({ path: path.join(OUT, 'serve-facets-3-chip-removed.png'), fullPage: false });

    // remove the filter chip: results from several DAACs again, the period still ignored
    await Promise.all([page.waitForURL((u) => !u.search.includes('provider=')), page.click('.chip.filter[data-kind="provider"] a.remove')]);
    await page.waitForSelector('#results .result');
    assert.ok(new Set(await resultDaacs(page)).size >= 2);
    assert.ok(page.url().includes('ignore=period'));
    // restore the period
    await Promise.all([page.waitForURL((u) => !u.search.includes('ignore=')), page.click('.chip.ignored[data-kind="period"] a.restore')]);
    assert.ok(await page.$('.chip.parsed[data-kind="period"]:not(.ignored)'));

    // 4. the form's filter inputs: a temporal range, submitted with the query
    await page.click('#filter-form summary');
    await page.fill('#f-temporal', '2016-01-01,2016-12-31');
    await Promise.all([page.waitForURL(/temporal=/), page.press('#q', 'Enter')]);
    await page.waitForSelector('.chip.filter[data-kind="temporal"]');
    assert.match((await page.textContent('.chip.filter[data-kind="temporal"]')) ?? '', /temporal 2016-01-01,2016-12-31/);
    // every dataset left covers 2016, so the 2010s facet counts the whole result set
    const periods = await page.$$eval('#facets section[data-facet="period"] a.facet-link', (els) => els.map((e) => ({ value: e.getAttribute('data-value'), count: Number(e.parentElement?.querySelector('.count')?.textContent) })));
    const over = Number(/top (\d+) results/.exec((await page.textContent('#facets')) ?? '')![1]);
    assert.equal(periods.find((p) => p.value === '2010s')?.count, over, `decades after the filter: ${JSON.stringify(periods)}`);
    assert.ok(await page.$('#facets section[data-facet="period"] li.active') === null, 'a typed range is not a decade facet');
    await page.screenshot({ path: path.join(OUT, 'serve-facets-4-form.png'), fullPage: true });

    // a bad box typed into the form: a 400 page naming the parameter
    await page.fill('#f-bounding_box', '0,60,10,20');
    const [resp] = await Promise.all([page.waitForNavigation(), page.press('#q', 'Enter')]);
    assert.is(resp?.status(), 400);
    assert.match((await page.textContent('#error')) ?? '', /bounding_box: south 60 is north of north 20/);

    assert.equal(dialogs, []);
    assert.equal(cspErrors, [], 'nothing blocked by the CSP');
    assert.equal(external, [], 'the page loads nothing from outside');
  } finally {
    await browser?.close();
    await app.close();
  }
});

test.run();
