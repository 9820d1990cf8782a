#!/usr/bin/env node
// Makes the README's two pictures under docs/img/: the search page of the service on the full snapshot with the
// default ranking (what `eo serve` answers; --sample: the 200-dataset sample), photographed in headless Debian
// chromium through playwright-core, and one figure PNG that a teacher-mode notebook run wrote (copied, not redrawn).
// Needs dist/ (`npm run build`) and, for the figure, `npm start -- --sample --only 01-benchmark --no-site` first.
//
//   node scripts/docs-screenshots.cjs [--query TEXT] [--sample] [--figure reports/01-benchmark/figures/NAME.png]
//
// --query   what is typed into the search box (default: the question below, which the default ranking answers well)
// --sample  photograph the sample snapshot (default: the full snapshot)
// --figure  the notebook figure to copy (default: reports/01-benchmark/figures/datasets-per-daac.png)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'docs', 'img');
const DEFAULT_FIGURE = path.join(ROOT, 'reports', '01-benchmark', 'figures', 'datasets-per-daac.png');
const DEFAULT_QUERY = 'sea ice concentration in the Arctic since 2015';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function parseArgs(argv) {
  const o = { query: DEFAULT_QUERY, figure: null, sample: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sample') {
      o.sample = true;
      continue;
    }
    const v = argv[i + 1];
    if ((a === '--query' || a === '--figure') && (v === undefined || v === '')) throw new Error(`docs-screenshots: ${a} needs a value`);
    if (a === '--query') o.query = argv[++i];
    else if (a === '--figure') o.figure = path.resolve(argv[++i]);
    else throw new Error(`docs-screenshots: unknown argument ${a} (flags: --query, --sample, --figure)`);
  }
  return o;
}

async function searchPage(query, sample) {
  const lib = require(path.join(ROOT, 'dist', 'lib'));
  const { chromiumExecutable } = require(path.join(ROOT, 'dist', 'lib', 'report'));
  const { writeFileAtomic } = require(path.join(ROOT, 'dist', 'lib', 'util'));
  if (!fs.existsSync(chromiumExecutable())) throw new Error(`docs-screenshots: chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
  const corpus = lib.loadSnapshot({ sample });
  const pipeline = await lib.loadSearchEngine(corpus, { sample }); // the default ranking, as eo serve answers
  const app = await lib.createSearchServer(pipeline);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    // the page must not need the network; anything not on loopback is refused
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
    await page.goto(`${base}/?q=${encodeURIComponent(query)}`);
    await page.waitForSelector('#results .result');
    const file = path.join(OUT, 'search-page.png');
    writeFileAtomic(file, await page.screenshot({ fullPage: false }));
    return file;
  } finally {
    await browser.close();
    await app.close();
  }
}

function notebookFigure(figure) {
  const { writeFileAtomic } = require(path.join(ROOT, 'dist', 'lib', 'util'));
  const src = figure ?? DEFAULT_FIGURE;
  if (!fs.existsSync(src)) {
    throw new Error(`docs-screenshots: ${path.relative(ROOT, src)} does not exist${figure ? '' : ': run `npm start -- --sample --only 01-benchmark --no-site` first'}`);
  }
  const file = path.join(OUT, 'notebook-figure.png');
  writeFileAtomic(file, fs.readFileSync(src));
  return { file, src };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(OUT, { recursive: true });
  const page = await searchPage(args.query, args.sample);
  console.log(`wrote ${path.relative(ROOT, page)}`);
  const fig = notebookFigure(args.figure);
  console.log(`wrote ${path.relative(ROOT, fig.file)} (from ${path.relative(ROOT, fig.src)})`);
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
