// The report site (lib/report/site.ts): from a small reports folder shaped as `npm start` leaves it (two executed
// notebooks with a PNG figure, an HTML table and LaTeX; figures/*.png|html; results.json; run.json; run and qrels
// files), build the nbconvert pages and index.html, then open the index, both notebook pages and an interactive
// figure in headless Debian chromium: every image loads, every local link resolves, nothing is fetched from the
// network, the console stays clean and MathJax (the site's copy) typesets the LaTeX. Screenshots:
// test-output/report-index.png, test-output/report-notebook.png, test-output/report-notebook-math.png.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { barFigure, buildReportSite, closeFigureRenderer, findSeeds, findTables, renderFigurePng, rowsToCsv, tableHtml, writeFigureFiles } from '../lib/report';
import { writeRunFiles, type Qrels, type Run } from '../lib/metrics';
import { writeJsonAtomic } from '../lib/util';
import { checkPage, launchChromium, pageProblems } from './helpers/report-pages';

const OUT = path.join(__dirname, '..', 'test-output');

function notebookJson(name: string, png: Buffer, tableHtmlText: string) {
  const cell = (source: string, outputs: unknown[], n: number) => ({ cell_type: 'code', execution_count: n, id: `c${n}`, metadata: {}, source, outputs });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'tslab', display_name: 'TypeScript', language: 'typescript' }, language_info: { name: 'typescript' } },
    cells: [
      { cell_type: 'markdown', id: 'm1', metadata: {}, source: `# ${name}\n\nMAP is the mean over queries of $\\mathrm{AP}(q) = \\frac{1}{|R_q|}\\sum_k P@k \\cdot rel_k$:\n\n$$\\mathrm{MAP} = \\frac{1}{|Q|}\\sum_{q \\in Q} \\mathrm{AP}(q)$$` },
      cell('showTable(rows, { best: true })', [{ output_type: 'display_data', metadata: {}, data: { 'text/html': tableHtmlText, 'text/plain': '[table]' } }], 1),
      cell('await showFigure(fig, { name: "gains" })', [{ output_type: 'display_data', metadata: {}, data: { 'image/png': png.toString('base64'), 'text/plain': '[figure gains]' } }], 2),
      cell('console.log("done")', [{ output_type: 'stream', name: 'stdout', text: 'done\n' }], 3),
    ],
  };
}

function fakeReports(root: string, png: Buffer) {
  const qrels: Qrels = new Map([['q1', new Map([['d1', 1]])], ['q2', new Map([['d3', 1]])]]);
  const runs: Run[] = [
    new Map([['q1', [{ docId: 'd1', score: 2 }, { docId: 'd2', score: 1 }]], ['q2', [{ docId: 'd2', score: 2 }, { docId: 'd3', score: 1 }]]]),
    new Map([['q1', [{ docId: 'd2', score: 2 }, { docId: 'd1', score: 1 }]], ['q2', [{ docId: 'd3', score: 1 }]]]),
  ];
  const metrics = [
    { system: 'BM25', 'R@10': 1, 'R@20': 1, 'R@100': 1, MAP: 0.75, MRR: 0.75 },
    { system: 'Cosine (base)', 'R@10': 1, 'R@20': 1, 'R@100': 1, MAP: 0.5, MRR: 0.5 },
  ];
  const fig = barFigure(['BM25', 'Cosine (base)'], [0.75, 0.75], { title: 'MAP' });
  const names = ['01-alpha', '02-beta'];
  names.forEach((name, i) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    const runFiles = writeRunFiles(dir, [{ id: 'bm25', label: 'BM25', run: runs[0] }, { id: 'cosine-base', label: 'Cosine (base)', run: runs[1] }], qrels, 'test');
    writeFigureFiles(dir, 'gains', fig, png);
    writeFigureFiles(dir, 'per query', fig, null); // a name with a space, HTML only
    writeJsonAtomic(path.join(dir, 'results.json'), {
      sample: true,
      metrics,
      paired: { 'BM25 vs Cosine (base)': [{ metric: 'MAP', diff: 0, p: 1 }] },
      training: { config: { seed: 7 + i } },
      seed: 42,
      runFiles: runFiles.map((f) => path.basename(f)),
      notebook: name,
      updatedAt: '2026-11-30T20:00:00.000Z',
    });
    writeJsonAtomic(path.join(dir, 'run.json'), {
      ok: true,
      seconds: 12.5 + i,
      kernelStartSeconds: 2,
      startedAt: '2026-11-30T19:59:47.000Z',
      finishedAt: '2026-11-30T20:00:00.000Z',
      git: { commit: 'abcdef0123456789abcdef0123456789abcdef01', dirty: i === 1 },
      sample: true,
      cells: [],
      error: null,
    });
    fs.writeFileSync(path.join(dir, `${name}.ipynb`), JSON.stringify(notebookJson(name, png, tableHtml(metrics, { title: 'Test split', best: true, source: { runFiles, qrels: 'qrels.test.trec' } }))));
  });
  fs.mkdirSync(path.join(root, 'not-a-notebook')); // ignored: not NN-name
  return names;
}

test('findTables, findSeeds and rowsToCsv read results.json generically', () => {
  const res = { metrics: [{ system: 'a', MAP: 0.5 }], nested: { per: { rows: [{ q: '1', x: 'a,"b"' }] } }, list: [1, 2], seed: 1, cfg: { seeds: [1, 2] } };
  assert.equal(findTables(res).map((t) => t.key), ['metrics', 'nested.per.rows']);
  assert.equal(findSeeds(res), { seed: 1, 'cfg.seeds': [1, 2] });
  assert.is(rowsToCsv([{ a: 1, b: 'x,y' }, { b: 'say "hi"', c: null }]), 'a,b,c\n1,"x,y",\n,"say ""hi""",\n');
});

test('report site: index and notebook pages load offline in chromium with every image and link resolving', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-site-'));
  let browser: Browser | null = null;
  try {
    const png = await renderFigurePng(barFigure(['BM25', 'Cosine (base)'], [0.75, 0.75], { title: 'MAP on the test split' }), { width: 600, height: 350 });
    await closeFigureRenderer();
    const names = fakeReports(root, png);
    const site = buildReportSite(root, { commit: 'feedbeef', now: new Date('2026-11-30T21:00:00Z') });
    assert.equal(site.notebooks.map((n) => n.name), names);
    for (const nb of site.notebooks) {
      assert.is(nb.pageError, undefined, `${nb.name}: ${nb.pageError}`);
      assert.is(nb.page, `${nb.name}/${nb.name}.html`);
      assert.equal(nb.tables.map((t) => t.key), ['metrics', 'paired.BM25 vs Cosine (base)']);
      assert.equal(nb.figures.map((f) => f.name), ['gains', 'per query']);
      assert.equal(nb.files, [`${nb.name}/bm25.test.run`, `${nb.name}/cosine-base.test.run`, `${nb.name}/qrels.test.trec`]);
    }
    assert.equal(site.notebooks[1].seeds, { 'training.config.seed': 8, seed: 42 });
    const csv = fs.readFileSync(path.join(root, site.notebooks[0].tables[0].csv), 'utf8');
    assert.is(csv.split('\n')[0], 'system,R@10,R@20,R@100,MAP,MRR');
    const index = fs.readFileSync(site.index, 'utf8');
    for (const s of ['12.5 s', '13.5 s', 'abcdef0123', '(modified)', 'feedbeef', '2026-11-30T20:00:00.000Z', 'training.config.seed=7, seed=42', 'training.config.seed=8, seed=42', '>sample<'])
      assert.ok(index.includes(s), `index shows ${s}`);
    const page = fs.readFileSync(path.join(root, '01-alpha', '01-alpha.html'), 'utf8');
    assert.not.match(page, /<script[^>]*src="https?:/, 'no scripts from the network');
    assert.match(page, /data:image\/png;base64,/, 'figure inline');
    assert.match(page, /eo-best/, 'HTML table output kept');
    assert.match(page, /href="\.\.\/index\.html"/);
    // LaTeX is typeset by the site's own copy of MathJax (Debian's libjs-mathjax), loaded relative to the page.
    assert.match(page, /<script[^>]*src="\.\.\/assets\/mathjax\/MathJax\.js\?config=TeX-AMS_CHTML-full,Safe"/, 'MathJax from the site');
    assert.ok(fs.existsSync(path.join(root, 'assets', 'mathjax', 'MathJax.js')), 'MathJax copied into the site');

    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
    const checks = [
      await checkPage(browser, site.index, path.join(OUT, 'report-index.png')),
      await checkPage(browser, path.join(root, '01-alpha', '01-alpha.html'), path.join(OUT, 'report-notebook.png'), { math: true, mathScreenshot: path.join(OUT, 'report-notebook-math.png') }),
      await checkPage(browser, path.join(root, '02-beta', '02-beta.html')),
      await checkPage(browser, path.join(root, '02-beta', 'figures', 'gains.html')),
    ];
    assert.equal(checks.flatMap(pageProblems), []);
    assert.is(checks[0].images, 2, 'one thumbnail per PNG figure (the HTML-only one has none)');
    assert.ok(checks[0].links >= 2 * (1 + 1 + 1 + 1 + 2 * 2 + 3 + 3), `index links: ${checks[0].links}`);
    assert.ok(checks[1].images >= 1, 'notebook page shows its figure');
    assert.ok(checks[1].links >= 3, 'notebook page links back and to results');
    assert.ok(checks[1].math && checks[1].math.typeset >= 2, `both equations typeset offline (${JSON.stringify(checks[1].math)})`);
    for (const f of ['report-index.png', 'report-notebook.png', 'report-notebook-math.png']) assert.ok(fs.statSync(path.join(OUT, f)).size > 5_000, `${f} written`);
    // The interactive figure drew (plotly.js-dist from figures/plotly.js).
    const pg = await browser.newPage();
    await pg.goto(`file://${path.join(root, '02-beta', 'figures', 'gains.html')}`);
    await pg.waitForSelector('#fig .main-svg');
    await pg.close();
  } finally {
    await browser?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
