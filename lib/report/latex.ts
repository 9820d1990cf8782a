/**
 * Results tables as LaTeX for a paper or a reviewer: booktabs rules, the best value of each marked column in bold,
 * a CI beside its value (`.123 [.100, .150]`) or in its own column, LaTeX's special characters escaped, caption and
 * label. Plain rows in, a `table` environment out.
 */
import { EoError } from '../errors';
import type { TableRow } from './types';

export interface LatexTableOptions {
  /** Columns in order. Default: every key of the first row, in its order (CI columns folded into their value). */
  columns?: readonly string[];
  /** Caption text (escaped). Default none. */
  caption?: string;
  /** `\label{…}` key (not escaped; letters, digits and `:-_.` only). Default none. */
  label?: string;
  /** Columns whose best value is set in bold: 'max' (larger is better) or 'min'. Default none. */
  best?: Record<string, 'max' | 'min'>;
  /** Fraction digits of numbers. Default 3. */
  digits?: number;
  /** Drop the leading zero of numbers in (−1, 1), as `.123` (papers' style). Default true. */
  dropLeadingZero?: boolean;
  /** CI of a value column: `{ MAP: ['MAP CI low', 'MAP CI high'] }`. Default none. */
  ci?: Record<string, readonly [string, string]>;
  /** 'inline' (default): `.123 [.100, .150]` in the value's cell; 'column': a separate `<col> 95% CI` column. */
  ciStyle?: 'inline' | 'column';
  /**
   * Significance marks: value column → the column that says whether it differs significantly, e.g.
   * `{ MAP: 'significant (MAP)' }` (a boolean: the one rule of lib/metrics/significance.ts, CI and Holm p, as Table 2's
   * rows carry it) or `{ MAP: 'p Holm (MAP)' }` (a p-value: below `alpha`, for tables without the boolean); a marked
   * value gets a superscript † and a note under the table says what it means. Default none.
   */
  significance?: Record<string, string>;
  /** Level of the significance marks. Default 0.05. */
  alpha?: number;
  /** The note under the table for the marks. Default: "† differs from the best system (paired test, Holm-corrected p < α)". */
  significanceNote?: string;
}

/** Characters that LaTeX treats specially in text, and the Unicode signs of our tables, as LaTeX text. */
const LATEX_CHARS: Record<string, string> = {
  '\\': '\\textbackslash{}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_', '{': '\\{', '}': '\\}',
  '~': '\\textasciitilde{}', '^': '\\textasciicircum{}', α: '$\\alpha$', Δ: '$\\Delta$', π: '$\\pi$', '−': '$-$',
  '×': '$\\times$', '†': '$^{\\dagger}$', '<': '$<$', '>': '$>$', '≤': '$\\leq$', '≥': '$\\geq$', '→': '$\\rightarrow$', '±': '$\\pm$', '·': '$\\cdot$',
};

/** Text with LaTeX's special characters escaped (`&` → `\&`, `_` → `\_`, …) and α, Δ, π, − as math. */
export function latexEscape(text: string): string {
  return Array.from(text, (ch) => LATEX_CHARS[ch] ?? ch).join('');
}

/** A number as a paper prints it: fixed digits, leading zero dropped in (−1, 1) where asked, a math minus. */
export function latexNumber(x: number, digits = 3, dropLeadingZero = true): string {
  if (!Number.isFinite(x)) return '--';
  let s = Math.abs(x).toFixed(digits);
  if (dropLeadingZero && s.startsWith('0.')) s = s.slice(1);
  const zero = Number(s) === 0;
  return x < 0 && !zero ? `$-$${s}` : s;
}

/** A text cell that holds only numbers (a difference and its CI, "+0.064 [-0.084, +0.240]"), as numbers are printed. */
const NUMERIC_TEXT = /^[\s+\-−\d.,[\]()]*\d\.\d[\s+\-−\d.,[\]()]*$/;

/** Numbers inside a numeric text cell in the table's one number format (digits, leading zero, math minus; `+` kept). */
function latexNumericText(text: string, digits: number, drop: boolean): string {
  return text.replace(/([+\-−]?)(\d+(?:\.\d+)?)/g, (_m, sign: string, num: string) => `${sign === '+' ? '+' : ''}${latexNumber(sign === '' || sign === '+' ? Number(num) : -Number(num), digits, drop)}`);
}

/** Any results table as a LaTeX `table` with booktabs rules (`\usepackage{booktabs}`). */
export function latexTable(rows: readonly TableRow[], opts: LatexTableOptions = {}): string {
  const digits = opts.digits ?? 3;
  const drop = opts.dropLeadingZero ?? true;
  const ci = opts.ci ?? {};
  const ciStyle = opts.ciStyle ?? 'inline';
  if (opts.label !== undefined && !/^[A-Za-z0-9:._-]+$/.test(opts.label))
    throw new EoError('INVALID_ARGUMENT', `latexTable: label "${opts.label}" may hold only letters, digits and :._-`, { field: 'label' });
  const ciCols = new Set(Object.values(ci).flat());
  const columns = (opts.columns ?? Object.keys(rows[0] ?? {})).filter((c) => !ciCols.has(c) || opts.columns !== undefined);
  for (const [col, [lo, hi]] of Object.entries(ci))
    rows.forEach((r, i) => {
      if (!(col in r) || !(lo in r) || !(hi in r)) throw new EoError('INVALID_ARGUMENT', `latexTable: row ${i + 1} lacks "${[col, lo, hi].find((k) => !(k in r))}" (the CI of ${col})`, { field: col, row: i + 1 });
    });
  const finiteValues = (col: string) => rows.map((r) => r[col]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const bestOf: Record<string, number> = {};
  for (const [col, dir] of Object.entries(opts.best ?? {})) {
    const vals = finiteValues(col);
    if (vals.length) bestOf[col] = dir === 'max' ? Math.max(...vals) : Math.min(...vals);
  }
  // a column of whole numbers beyond 0/1 (counts, seconds, parameters) prints as integers: 2890240, not 2890240.000
  const integerColumns = new Set(columns.filter((c) => {
    const vals = finiteValues(c);
    return vals.length > 0 && vals.every(Number.isInteger) && vals.some((v) => Math.abs(v) > 1);
  }));
  const fmt = (v: unknown, c?: string): string => {
    if (typeof v === 'number') return c !== undefined && integerColumns.has(c) ? latexNumber(v, 0, false) : latexNumber(v, digits, drop);
    if (v === null || v === undefined) return '';
    const text = String(v);
    return NUMERIC_TEXT.test(text) ? latexNumericText(text, digits, drop) : latexEscape(text);
  };
  const alpha = opts.alpha ?? 0.05;
  const significance = opts.significance ?? {};
  let marked = false;
  // whether the marks come from the one rule's booleans (CI and Holm p) rather than from p alone: the note says which
  let byRule = false;
  const head: string[] = [];
  const align: string[] = [];
  for (const c of columns) {
    const numeric = rows.some((r) => typeof r[c] === 'number');
    head.push(latexEscape(c));
    align.push(numeric ? 'r' : 'l');
    if (ci[c] && ciStyle === 'column') {
      head.push(`${latexEscape(c)} 95\\% CI`);
      align.push('c');
    }
  }
  const body = rows.map((r) => {
    const cells: string[] = [];
    for (const c of columns) {
      const v = r[c];
      // equal within rounding noise counts as best, so ties are all bold
      let cell = fmt(v, c);
      if (typeof v === 'number' && c in bestOf && Math.abs(v - bestOf[c]) <= 1e-12) cell = `\\textbf{${cell}}`;
      const s = significance[c] === undefined ? undefined : r[significance[c]];
      if (typeof s === 'boolean') byRule = true;
      if (typeof v === 'number' && (s === true || (typeof s === 'number' && s < alpha))) {
        cell = `${cell}${LATEX_CHARS['†']}`;
        marked = true;
      }
      const interval = ci[c] ? `[${fmt(r[ci[c][0]])}, ${fmt(r[ci[c][1]])}]` : '';
      if (ci[c] && ciStyle === 'inline') cell = `${cell} ${interval}`;
      cells.push(cell);
      if (ci[c] && ciStyle === 'column') cells.push(interval);
    }
    return `${cells.join(' & ')} \\\\`;
  });
  return [
    '\\begin{table}[t]',
    '\\centering',
    ...(opts.caption ? [`\\caption{${latexEscape(opts.caption)}}`] : []),
    ...(opts.label ? [`\\label{${opts.label}}`] : []),
    `\\begin{tabular}{${align.join('')}}`,
    '\\toprule',
    `${head.join(' & ')} \\\\`,
    '\\midrule',
    ...body,
    '\\bottomrule',
    '\\end{tabular}',
    ...(marked ? [`\\par\\footnotesize ${latexEscape(opts.significanceNote ?? (byRule
      ? '† differs significantly from the best system (paired bootstrap 95% CI excludes 0 and Holm-corrected p < .05)'
      : `† differs from the best system (paired test, Holm-corrected p < ${latexNumber(alpha, 2, true)})`))}`] : []),
    '\\end{table}',
    '',
  ].join('\n');
}
