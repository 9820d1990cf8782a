// The "paper vs ours" summary of the report index (lib/report/paper-summary.ts): the paper's recorded numbers
// beside ours from the notebooks' results.json, with ratio and difference; the index's cells match the inputs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildReportSite, paperCells, paperVsOurs, PAPER_RERANK_ROWS, PAPER_TABLE2, type PaperTable2Row } from '../lib/report';
import { writeJsonAtomic } from '../lib/util';

// Partial rows (a metric not recorded is left out); cast because the paper module may type every metric as recorded.
const table2 = [
  { label: 'BM25', values: { MAP: 0.05, 'R@10': 0.2 } },
  { label: 'NN-SSC', values: {} },
] as unknown as PaperTable2Row[];
const rerank = PAPER_RERANK_ROWS.filter((r) => r.table === 4);

test('paperCells lists every recorded paper number once', () => {
  const cells = paperCells(table2, rerank);
  assert.is(cells.length, 2 + 2 * rerank.length);
  assert.equal(cells[0], { table: 'Table 2', paperName: 'BM25', system: 'BM25', metric: 'MAP', paper: 0.05 });
  const backbone = cells.find((c) => c.table === 'Table 4' && c.system === 'NN-SSC + BM25' && c.metric === 'MRR');
  assert.is(backbone?.paper, rerank.find((r) => r.backbone === 'NN-SSC + BM25' && r.model === null)!.MRR);
  // The defaults are paper.ts's own numbers.
  const recorded = PAPER_TABLE2.reduce((n, r) => n + Object.keys(r.values).length, 0);
  assert.is(paperCells().length, recorded + 2 * PAPER_RERANK_ROWS.length);
});

test('paperVsOurs fills ours, ratio and difference from the first notebook that has the row', () => {
  const cells = paperVsOurs(
    [
      { name: '02-hybrid', results: { metrics: [{ system: 'BM25', MAP: 0.1, 'R@10': 'n/a' }] } },
      { name: '05-fusion', results: { metrics: [{ system: 'BM25', MAP: 0.9, 'R@10': 0.3 }] } },
      { name: '06-llm-rerank', results: null },
    ],
    paperCells(table2, []),
  );
  assert.is(cells[0].ours, 0.1);
  assert.is(cells[0].notebook, '02-hybrid');
  assert.ok(Math.abs(cells[0].ratio! - 2) < 1e-12);
  assert.ok(Math.abs(cells[0].difference! - 0.05) < 1e-12);
  // A non-numeric value is skipped: R@10 comes from 05.
  assert.is(cells[1].ours, 0.3);
  assert.is(cells[1].notebook, '05-fusion');
  assert.ok(Math.abs(cells[1].ratio! - 1.5) < 1e-12);
  const none = paperVsOurs([], paperCells(table2, []));
  assert.equal(none.map((c) => [c.ours, c.ratio, c.difference, c.notebook]), [[null, null, null, null], [null, null, null, null]]);
});

test('the report index opens with the summary and its cells match the inputs', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-paper-summary-'));
  try {
    const backbone = PAPER_RERANK_ROWS.find((r) => r.backbone === 'NN-SSC + BM25' && r.model === null)!;
    const ours = { system: 'NN-SSC + BM25', MAP: 0.13, MRR: 0.604 };
    fs.mkdirSync(path.join(root, '06-llm-rerank'));
    writeJsonAtomic(path.join(root, '06-llm-rerank', 'results.json'), { metrics: [ours] });
    const html = fs.readFileSync(buildReportSite(root, { nbconvert: false, mathjaxDir: null }).index, 'utf8');
    assert.ok(html.indexOf('id="paper-vs-ours"') < html.indexOf('id="notebooks"'), 'the summary comes first');
    const rowsHtml = [...html.matchAll(/<tr data-table="([^"]*)" data-system="([^"]*)" data-metric="([^"]*)">([\s\S]*?)<\/tr>/g)];
    assert.is(rowsHtml.length, paperCells().length);
    for (const metric of ['MAP', 'MRR'] as const) {
      const row = rowsHtml.find((m) => m[1] === 'Table 4' && m[2] === 'NN-SSC + BM25' && m[3] === metric);
      assert.ok(row, `row for ${metric}`);
      const col = (name: string) => new RegExp(`data-col="${name}">([^<]*)<`).exec(row![4])![1];
      assert.is(Number(col('paper')), backbone[metric]);
      assert.is(Number(col('ours')), ours[metric]);
      assert.is(col('ratio'), `${(ours[metric] / backbone[metric]).toFixed(2)}×`);
      assert.is(Number(col('difference')), Number((ours[metric] - backbone[metric]).toFixed(3)));
    }
    const unmatched = rowsHtml.find((m) => m[1] === 'Table 5');
    assert.match(unmatched![4], /data-col="ours"><\/td>/);
    assert.match(unmatched![4], /not run/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
