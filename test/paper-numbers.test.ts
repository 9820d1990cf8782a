import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NASA_EO_BENCH, PAPER_JUDGE_COLUMNS, PAPER_RERANK_ROWS, PAPER_TABLE2, PAPER_TABLE2_CLAIM } from '../lib/bench/paper';
import { METRIC_NAMES } from '../lib/metrics/types';

// lib/bench/paper.ts against the measured notes it was copied from (../shared/notes): every cell of Table 2, the
// benchmark's sizes, the 5× claim and the rerank rows. Skips, saying so, where the notes are absent.
const NOTES = path.resolve(__dirname, '..', '..', 'shared', 'notes');

/** Rows of the first markdown table in `md` whose header starts with `first`: { name → cells }. */
function markdownTable(md: string, first: string): Map<string, string[]> {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  const out = new Map<string, string[]>();
  if (at < 0) return out;
  for (const l of lines.slice(at + 2)) {
    if (!l.startsWith('|')) break;
    const cells = l.split('|').slice(1, -1).map((c) => c.trim());
    out.set(cells[0], cells.slice(1));
  }
  return out;
}

const table2Note = path.join(NOTES, 'paper-table2.md');

test('Table 2: every cell equals the note (citation metrics and judge P@K)', () => {
  if (!fs.existsSync(table2Note)) return console.log(`skipped: ${table2Note} not present`);
  const md = fs.readFileSync(table2Note, 'utf8');
  const rows = markdownTable(md, 'method');
  assert.is(rows.size, PAPER_TABLE2.length, 'one row per printed method');
  for (const r of PAPER_TABLE2) {
    const cells = rows.get(r.paperName);
    assert.ok(cells, `note has no row "${r.paperName}"`);
    const ours = [...METRIC_NAMES.map((m) => r.values[m]), ...PAPER_JUDGE_COLUMNS.map((c) => r.judge[c])];
    assert.equal(ours, cells!.map(Number), r.paperName);
  }
  assert.ok(md.includes(NASA_EO_BENCH.test.toLocaleString('en-US')) && md.includes(NASA_EO_BENCH.datasets.toLocaleString('en-US')), 'benchmark sizes');
});

test("the 5× claim holds on the paper's own Table 2", () => {
  const v = (label: string) => PAPER_TABLE2.find((r) => r.label === label)!.values;
  for (const m of PAPER_TABLE2_CLAIM.metrics) assert.ok(v(PAPER_TABLE2_CLAIM.better)[m] / v(PAPER_TABLE2_CLAIM.than)[m] > PAPER_TABLE2_CLAIM.atLeast, m);
});

test('rerank rows: each MAP/MRR pair appears in the LLM-protocol note', () => {
  const note = path.join(NOTES, 'paper-llm-protocol.md');
  if (!fs.existsSync(note)) return console.log(`skipped: ${note} not present`);
  const md = fs.readFileSync(note, 'utf8');
  const trim = (x: number) => String(x).replace(/^0/, '');
  for (const r of PAPER_RERANK_ROWS) {
    const found = [x3(r.MAP), trim(r.MAP), String(r.MAP)].some((s) => md.includes(s)) && [x3(r.MRR), trim(r.MRR), String(r.MRR)].some((s) => md.includes(s));
    assert.ok(found, `${r.name}: MAP ${r.MAP} / MRR ${r.MRR} not in the note`);
  }
});

function x3(x: number): string {
  return x.toFixed(3);
}

test.run();
