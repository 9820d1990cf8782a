// lib/report tables (danfojs DataFrames, HTML/text rendering with best marks and source footers) and figure layout
// defaults (legend placement, figure pages loading one plotly.js copy).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  bestCells,
  barFigure,
  figureHtml,
  formatTable,
  frameRows,
  isDataFrame,
  legendPlacement,
  plotlyJsPath,
  scatterFigure,
  sourceLines,
  tableHtml,
  toDataFrame,
  withLegendLayout,
  writeFigureFiles,
  PLOTLY_FILE,
} from '../lib/report';
import { EoError } from '../lib/errors';

const metricRows = [
  { system: 'BM25', 'R@10': 0.41, MAP: 0.2512, MRR: 0.3 },
  { system: 'Cosine (base)', 'R@10': 0.33, MAP: 0.1999, MRR: 0.35 },
  { system: 'Hybrid', 'R@10': 0.41, MAP: 0.3, note: 'α = 0.62' },
];

test('toDataFrame: one column per key in order of first appearance, missing keys as null, rows aligned', () => {
  const df = toDataFrame(metricRows);
  assert.ok(isDataFrame(df));
  assert.equal(df.columns, ['system', 'R@10', 'MAP', 'MRR', 'note']);
  assert.equal(df.shape, [3, 5]);
  const rows = frameRows(df);
  assert.equal(rows[2], { system: 'Hybrid', 'R@10': 0.41, MAP: 0.3, MRR: null, note: 'α = 0.62' });
  assert.is(rows[0].note, null);
  assert.is(rows[1].MAP, 0.1999, 'numbers keep their double value');
  // The reader's operations work on it.
  const sorted = frameRows(df.sortValues('MAP', { ascending: false }));
  assert.equal(sorted.map((r) => r.system), ['Hybrid', 'BM25', 'Cosine (base)']);
});

test('toDataFrame: explicit columns pick and order; objects become JSON; empty rows keep their columns', () => {
  const df = toDataFrame([{ a: 1, b: { x: [1, 2] }, c: 'drop' }], ['b', 'a']);
  assert.equal(df.columns, ['b', 'a']);
  assert.equal(frameRows(df), [{ b: '{"x":[1,2]}', a: 1 }]);
  const empty = toDataFrame([], ['system', 'MAP']);
  assert.equal(empty.columns, ['system', 'MAP']);
  assert.is(empty.shape[0], 0);
  // A DataFrame narrowed to columns it lacks is a clear error.
  assert.throws(() => toDataFrame(toDataFrame(metricRows), ['MAP', 'nope']), (e: unknown) => e instanceof EoError && /"nope"/.test((e as Error).message));
  assert.not.ok(isDataFrame(metricRows));
});

test('per-query table as a DataFrame can be grouped by a column', () => {
  const perQuery = [
    { query: 'q1', daac: 'GES_DISC', AP: 0.5 },
    { query: 'q2', daac: 'GES_DISC', AP: 0.25 },
    { query: 'q3', daac: 'NSIDC', AP: 1 },
  ];
  const g = frameRows(toDataFrame(perQuery).groupby(['daac']).col(['AP']).mean());
  const byDaac = Object.fromEntries(g.map((r) => [r.daac, r.AP_mean]));
  assert.equal(byDaac, { GES_DISC: 0.375, NSIDC: 1 });
});

test('danfojs statistics that use mathjs work through the lazy stand-in loadDanfo gives it', () => {
  const df = toDataFrame([{ g: 'a', v: 2 }, { g: 'a', v: 5 }, { g: 'b', v: 9 }]);
  assert.is(df['v'].median(), 5);
  assert.ok(Math.abs(df['v'].std() - Math.sqrt(37 / 3)) < 1e-12, 'sample std through mathjs');
  assert.ok(Math.abs(df['v'].var() - 37 / 3) < 1e-12, 'sample variance through mathjs');
  assert.equal(frameRows(df.groupby(['g']).agg({ v: 'median' })), [{ g: 'a', v_median: 3.5 }, { g: 'b', v_median: 9 }]);
});

test('bestCells: true marks the max of numeric columns, ties at shown precision all marked; min per column', () => {
  const cols = ['system', 'R@10', 'MAP', 'MRR', 'note'];
  const m = bestCells(metricRows, cols, true, 3);
  assert.equal([...m.keys()], ['R@10', 'MAP', 'MRR']);
  assert.equal([...m.get('R@10')!], [0, 2], 'tie marked twice');
  assert.equal([...m.get('MAP')!], [2]);
  assert.equal([...m.get('MRR')!], [1]);
  const low = bestCells([{ p: 0.04 }, { p: 0.0401 }, { p: 0.5 }], ['p'], { p: 'min' }, 3);
  assert.equal([...low.get('p')!], [0, 1], '0.0401 shows as 0.040');
  assert.equal([...bestCells([{ p: 0.04 }, { p: 0.0401 }], ['p'], { p: 'min' }, 4).get('p')!], [0]);
  assert.throws(() => bestCells(metricRows, cols, ['nDCG'], 3), /no column "nDCG"/);
  assert.is(bestCells([{ m: 0.5 }, { m: 0.5 }], ['m'], true, 3).size, 0, 'all tied: nothing marked');
});

test('tableHtml: caption, header, best values bold, footer names run/qrels files and settings', () => {
  const runFile = path.join(process.cwd(), 'reports', '02-baselines', 'bm25.test.run');
  const opts = {
    title: 'Test split: 3 systems',
    digits: 4,
    best: true as const,
    source: { runFiles: [runFile, '/elsewhere/cos.test.run'], qrels: 'qrels.test.trec', settings: { k1: 0.9, b: 0.4, seed: 42 }, note: 'sample snapshot' },
  };
  for (const input of [metricRows, toDataFrame(metricRows)]) {
    const html = tableHtml(input, opts);
    assert.match(html, /<caption[^>]*>Test split: 3 systems<\/caption>/);
    assert.match(html, /<th[^>]*>R@10<\/th>/);
    assert.match(html, /class="eo-best">0\.3000<\/td>/, 'MAP of Hybrid marked');
    assert.is((html.match(/eo-best/g) ?? []).length, 4, 'R@10 twice, MAP, MRR');
    assert.match(html, /<tfoot/);
    assert.match(html, /runs: reports\/02-baselines\/bm25\.test\.run, \/elsewhere\/cos\.test\.run/);
    assert.match(html, /qrels: qrels\.test\.trec/);
    assert.match(html, /settings: k1=0\.9, b=0\.4, seed=42/);
    assert.match(html, /sample snapshot/);
    assert.match(html, /α = 0\.62/);
  }
  assert.match(tableHtml([{ a: '<script>' }]), /&lt;script&gt;/, 'cells escaped');
  assert.not.match(tableHtml(metricRows), /<tfoot/, 'no footer without source, marks or omitted rows');
});

test('formatTable: text table with starred best values and the same footer', () => {
  const text = formatTable(metricRows, { best: ['MAP'], source: { qrels: 'qrels.test.trec' }, digits: 3 });
  const lines = text.split('\n');
  assert.match(lines[0], /^system\s+R@10\s+MAP\s+MRR\s+note$/);
  assert.match(lines.find((l) => l.startsWith('Hybrid'))!, /0\.300\*/);
  assert.not.match(lines.find((l) => l.startsWith('BM25'))!, /\*/);
  assert.ok(lines.includes('qrels: qrels.test.trec'));
  assert.ok(lines.includes('bold (text: *) = best value of the column MAP'), 'the footnote names the one marked column');
  assert.ok(formatTable(metricRows, { best: ['R@10', 'MAP'] }).split('\n').includes('bold (text: *) = best value of each column R@10, MAP'));
  assert.equal(sourceLines(undefined), []);
  const many = formatTable(Array.from({ length: 5 }, (_, i) => ({ i })), { maxRows: 2 });
  assert.match(many, /\.\.\. 3 more rows/);
});

const longNames = ['Hybrid (BM25 + Cosine fine-tuned) vs BM25', 'Hybrid (BM25 + Cosine fine-tuned) vs Cosine (fine-tuned)'];

test('legend goes below the plot when series names are long, stays right when short', () => {
  const long = scatterFigure(longNames.map((name) => ({ name, x: [1, 2], y: [0, 1], mode: 'lines' as const })));
  assert.is(legendPlacement(long), 'below');
  const legend = long.layout!.legend as Record<string, unknown>;
  assert.is(legend.orientation, 'h');
  assert.is(legend.yref, 'container');
  assert.is(legend.yanchor, 'bottom');
  const short = barFigure(['a', 'b'], { BM25: [1, 2], Cosine: [2, 1] });
  assert.is(legendPlacement(short), 'right');
  assert.is(short.layout!.legend, undefined);
  // Width matters: the same names fit beside a wide figure.
  assert.is(legendPlacement({ data: longNames.map((name) => ({ name })), layout: { width: 3000 } }), 'right');
  // One series, hidden legends and explicit choices.
  assert.is(legendPlacement(scatterFigure({ name: longNames[0], x: [1], y: [1] })), 'none');
  assert.is(legendPlacement({ data: longNames.map((name) => ({ name })), layout: { showlegend: false } }), 'none');
  assert.is(legendPlacement(short, 'below'), 'below');
  assert.is(barFigure(['a'], { [longNames[0]]: [1], [longNames[1]]: [2] }, { legend: 'right' }).layout!.legend, undefined);
  // A legend the caller set is kept; the input figure is not modified.
  const own = { data: longNames.map((name) => ({ name })), layout: { legend: { x: 1 } } };
  assert.is(withLegendLayout(own), own);
  const hand = { data: longNames.map((name) => ({ name })), layout: {} as Record<string, unknown> };
  const placed = withLegendLayout(hand);
  assert.is(hand.layout.legend, undefined);
  assert.is((placed.layout!.legend as Record<string, unknown>).orientation, 'h');
});

test('figure pages load plotly.js-dist: one copy per figures folder, or inlined when standalone', () => {
  assert.match(plotlyJsPath(), /plotly\.js-dist[\\/]plotly\.js$/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-fig-'));
  try {
    const fig = barFigure(['a', 'b'], [1, 2]);
    const a = writeFigureFiles(dir, 'one', fig, null);
    const b = writeFigureFiles(dir, 'two', fig, Buffer.from([137, 80, 78, 71]));
    const copy = path.join(dir, 'figures', PLOTLY_FILE);
    assert.is(fs.statSync(copy).size, fs.statSync(plotlyJsPath()).size);
    for (const f of [a.html, b.html]) {
      const html = fs.readFileSync(f, 'utf8');
      assert.match(html, /<script src="plotly\.js"><\/script>/);
      assert.ok(html.length < 100_000, 'plotly is not inlined into every page');
    }
    assert.is(a.png, null);
    assert.ok(fs.existsSync(b.png!));
    assert.ok(figureHtml(fig).length > fs.statSync(plotlyJsPath()).size, 'standalone page inlines the bundle');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
