/**
 * The "paper vs ours" summary at the top of the report site's index: every number of the paper that paper.ts
 * records (Table 2 and the rerank Tables 4–6), beside our value for the same system and metric from the notebooks'
 * results.json `metrics` rows, with their ratio (ours / paper) and difference (ours − paper).
 */
import { escapeHtml } from '../util/html';
import { PAPER_RERANK_ROWS, PAPER_TABLE2, type PaperRerankRow, type PaperTable2Row } from './paper';

/** One number of the paper, and the system label our results.json rows carry for the same system. */
export interface PaperCell {
  /** The paper's table ('Table 2', 'Table 4', …). */
  table: string;
  /** The paper's name of the row. */
  paperName: string;
  /** Our system label (the `system` of a results.json metrics row). */
  system: string;
  metric: string;
  paper: number;
}

/** A paper cell with our value filled in where a notebook's results.json has it. */
export interface PaperSummaryCell extends PaperCell {
  /** Our value, or null when no notebook reported this system and metric. */
  ours: number | null;
  /** The notebook whose results.json gave `ours` (the first in order that has it). */
  notebook: string | null;
  /** ours / paper (null without ours, or when the paper's value is 0). */
  ratio: number | null;
  /** ours − paper (null without ours). */
  difference: number | null;
}

/**
 * The paper's recorded numbers as cells. Table 2 rows carry our row labels; of the rerank tables only the
 * backbone rows (no reranker) have a label of ours, the backbone's, so LLM rows keep the paper's name as system
 * and stay unmatched unless a notebook reports a row under that name.
 */
export function paperCells(table2: readonly PaperTable2Row[] = PAPER_TABLE2, rerank: readonly PaperRerankRow[] = PAPER_RERANK_ROWS): PaperCell[] {
  const cells: PaperCell[] = [];
  for (const row of table2)
    for (const [metric, value] of Object.entries(row.values))
      if (typeof value === 'number') cells.push({ table: 'Table 2', paperName: (row as { paperName?: string }).paperName ?? row.label, system: row.label, metric, paper: value });
  for (const row of rerank) {
    const system = row.model === null ? row.backbone : row.name;
    for (const metric of ['MAP', 'MRR'] as const)
      cells.push({ table: `Table ${row.table}`, paperName: row.name, system, metric, paper: row[metric] });
  }
  return cells;
}

/** Our value of (system, metric) in one results.json: its `metrics` array's row with that `system`, if numeric. */
function ourValue(results: unknown, system: string, metric: string): number | null {
  const rows = (results as { metrics?: unknown } | null)?.metrics;
  if (!Array.isArray(rows)) return null;
  for (const r of rows) {
    if (!r || typeof r !== 'object' || (r as { system?: unknown }).system !== system) continue;
    const v = (r as Record<string, unknown>)[metric];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/** Fill our numbers into the paper's cells from the notebooks' results.json (in notebook order; first match wins). */
export function paperVsOurs(notebooks: readonly { name: string; results: unknown }[], cells: readonly PaperCell[] = paperCells()): PaperSummaryCell[] {
  return cells.map((c) => {
    for (const nb of notebooks) {
      const ours = ourValue(nb.results, c.system, c.metric);
      if (ours === null) continue;
      return { ...c, ours, notebook: nb.name, ratio: c.paper !== 0 ? ours / c.paper : null, difference: ours - c.paper };
    }
    return { ...c, ours: null, notebook: null, ratio: null, difference: null };
  });
}

function fmt(v: number | null, digits = 3, signed = false): string {
  if (v === null) return '';
  return (signed && v > 0 ? '+' : '') + v.toFixed(digits);
}

/** The summary as an HTML table (id `paper-vs-ours`), one row per paper cell; cells carry data-* for tests. */
export function paperSummaryHtml(cells: readonly PaperSummaryCell[]): string {
  const matched = cells.filter((c) => c.ours !== null).length;
  const rows = cells.map(
    (c) => `<tr data-table="${escapeHtml(c.table)}" data-system="${escapeHtml(c.system)}" data-metric="${escapeHtml(c.metric)}">
<td>${escapeHtml(c.table)}</td><td>${escapeHtml(c.paperName)}</td><td>${escapeHtml(c.metric)}</td>
<td class="num" data-col="paper">${fmt(c.paper)}</td><td class="num" data-col="ours">${fmt(c.ours)}</td>
<td class="num" data-col="ratio">${c.ratio === null ? '' : `${c.ratio.toFixed(2)}×`}</td><td class="num" data-col="difference">${fmt(c.difference, 3, true)}</td>
<td>${c.notebook ? `<a href="#${escapeHtml(c.notebook)}">${escapeHtml(c.notebook)}</a>` : 'not run'}</td></tr>`,
  );
  return `<h2 id="paper-vs-ours-title">Paper vs ours</h2>
<p>Every number of the paper this project records, beside ours for the same system and metric (${matched} of ${cells.length} found in the notebooks' results.json). Ratio is ours / paper; difference is ours − paper. Sample-snapshot runs are not comparable in scale.</p>
<table id="paper-vs-ours"><thead><tr><th>table</th><th>paper row</th><th>metric</th><th>paper</th><th>ours</th><th>ratio</th><th>difference</th><th>notebook</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`;
}
