import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { latexEscape, latexNumber, latexTable } from '../lib/report';

const ROOT = path.resolve(__dirname, '..');
const EO = path.join(ROOT, 'dist', 'lib', 'cli', 'eo.js');

const rows = [
  { system: 'BM25 & fields', MAP: 0.2501, MRR: 0.31, 'MAP lo': 0.2, 'MAP hi': 0.3, note: '5% of q_ids' },
  { system: 'NN-SSC + BM25', MAP: 0.3412, MRR: 0.29, 'MAP lo': 0.3, 'MAP hi': 0.38, note: 'α = 0.4' },
  { system: 'Cosine', MAP: 0.1, MRR: 0.31, 'MAP lo': 0.05, 'MAP hi': 0.15, note: '' },
];

test('latexEscape escapes the special characters and writes our Unicode signs as math', () => {
  assert.is(latexEscape('a & b % c _ d $ # { } ~ ^ \\'), 'a \\& b \\% c \\_ d \\$ \\# \\{ \\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}');
  assert.is(latexEscape('Δ α π −'), '$\\Delta$ $\\alpha$ $\\pi$ $-$');
  assert.is(latexNumber(0.1234), '.123');
  assert.is(latexNumber(-0.0123), '$-$.012');
  assert.is(latexNumber(-0.0001), '.000');
  assert.is(latexNumber(1.5, 2), '1.50');
  assert.is(latexNumber(Number.NaN), '--');
});

test('latexTable: booktabs rules, caption and label, bold on the true best per column (ties too), inline CI, escaping', () => {
  const tex = latexTable(rows, { caption: 'Table 2 (test split) & 50% sample', label: 'tab:table2', best: { MAP: 'max', MRR: 'max' }, ci: { MAP: ['MAP lo', 'MAP hi'] } });
  const lines = tex.trim().split('\n');
  assert.is(lines[0], '\\begin{table}[t]');
  assert.is(lines.at(-1), '\\end{table}');
  assert.ok(lines.includes('\\caption{Table 2 (test split) \\& 50\\% sample}'));
  assert.ok(lines.includes('\\label{tab:table2}'));
  const top = lines.indexOf('\\toprule');
  const mid = lines.indexOf('\\midrule');
  const bottom = lines.indexOf('\\bottomrule');
  assert.ok(top > 0 && mid === top + 2 && bottom === mid + rows.length + 1, 'toprule, header, midrule, rows, bottomrule');
  assert.is(lines[top - 1], '\\begin{tabular}{lrrl}', 'CI columns folded into MAP; numbers right-aligned');
  assert.is(lines[top + 1], 'system & MAP & MRR & note \\\\');
  assert.is(lines[mid + 1], 'BM25 \\& fields & .250 [.200, .300] & \\textbf{.310} & 5\\% of q\\_ids \\\\');
  assert.is(lines[mid + 2], 'NN-SSC + BM25 & \\textbf{.341} [.300, .380] & .290 & $\\alpha$ = 0.4 \\\\');
  assert.is(lines[mid + 3], 'Cosine & .100 [.050, .150] & \\textbf{.310} &  \\\\');
  assert.is((tex.match(/\\textbf/g) ?? []).length, 3, 'the best MAP and both tied best MRR, nothing else');
});

test('latexTable: CI in its own column, min as best, and clear errors', () => {
  const tex = latexTable(rows, { columns: ['system', 'MAP'], best: { MAP: 'min' }, ci: { MAP: ['MAP lo', 'MAP hi'] }, ciStyle: 'column', digits: 2, dropLeadingZero: false });
  assert.match(tex, /system & MAP & MAP 95\\% CI \\\\/);
  assert.match(tex, /Cosine & \\textbf\{0\.10\} & \[0\.05, 0\.15\] \\\\/);
  assert.throws(() => latexTable(rows, { label: 'bad label{' }), /label/);
  assert.throws(() => latexTable([{ MAP: 0.1 }], { ci: { MAP: ['lo', 'hi'] } }), /row 1 lacks "lo"/);
});

test('eo export latex and eo eval --format latex reach the LaTeX export from the CLI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-latex-'));
  try {
    const file = path.join(dir, 'results.json');
    fs.writeFileSync(file, JSON.stringify({ table2: rows }));
    const r = spawnSync(process.execPath, [EO, 'export', 'latex', file, '--key', 'table2', '--columns', 'system,MAP', '--best', 'MAP', '--caption', 'A_b', '--label', 'tab:x'], { encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /\\caption\{A\\_b\}/);
    assert.match(r.stdout, /NN-SSC \+ BM25 & \\textbf\{\.341\} \\\\/);
    const bad = spawnSync(process.execPath, [EO, 'export', 'latex', file, '--key', 'nope'], { encoding: 'utf8', timeout: 60_000 });
    assert.not.equal(bad.status, 0);
    assert.match(bad.stderr, /no field "nope"/);
    const run = path.join(dir, 'x.run');
    const qrels = path.join(dir, 'q.trec');
    fs.writeFileSync(run, 'q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n');
    fs.writeFileSync(qrels, 'q1 0 d2 1\n');
    const ev = spawnSync(process.execPath, [EO, 'eval', '--run', run, '--qrels', qrels, '--format', 'latex'], { encoding: 'utf8', timeout: 60_000 });
    assert.is(ev.status, 0, ev.stderr);
    assert.match(ev.stdout, /\\toprule\nsystem & R@10 & R@20 & R@100 & MAP & MRR \\\\\n\\midrule\nx\.run & \\textbf\{1\.0000\} .* & \\textbf\{\.5000\} \\\\/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('eo export latex of a Table 2: system + R@10, MAP, MRR by default, the system column always, integers as integers, one number format, † from the Holm-corrected tests', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-latex-t2-'));
  try {
    const row = (system: string, r10: number, map: number, mrr: number, params: number, delta: string, pHolm: number | null) => ({
      system, 'R@10': r10, 'R@20': r10 + 0.1, MAP: map, MRR: mrr, 'trainable params': params, 'training time (s)': 12.5,
      'ΔMAP vs best [95% CI]': delta, 'p (MAP)': pHolm, 'p Holm (MAP)': pHolm, 'p Holm (MRR)': pHolm === null ? null : pHolm * 2, note: 'α = 0.4 < 1',
    });
    const file = path.join(dir, 'table2.json');
    fs.writeFileSync(file, JSON.stringify([row('BM25', 0.348, 0.28, 0.31, 0, '-0.083 [-0.120, -0.046]', 0.001), row('NN-SSC + BM25', 0.412, 0.342, 0.401, 2890240, '', null), row('Cosine', 0.2, 0.33, 0.39, 0, '−0.012 [−0.050, +0.020]', 0.04)]));
    const exportOf = (f: string, ...args: string[]) => spawnSync(process.execPath, [EO, 'export', 'latex', f, ...args], { encoding: 'utf8', timeout: 60_000 });
    const eo = (...args: string[]) => exportOf(file, ...args);
    const d = eo();
    assert.is(d.status, 0, d.stderr);
    const lines = d.stdout.split('\n');
    assert.ok(lines.includes('system & R@10 & MAP & MRR \\\\'), d.stdout);
    // MAP: BM25 (p .001) and Cosine (p .04) differ from the best; MRR: only BM25 (.002; Cosine's .08 is not below .05)
    assert.ok(lines.includes('BM25 & .348 & .280$^{\\dagger}$ & .310$^{\\dagger}$ \\\\'), d.stdout);
    assert.ok(lines.includes('NN-SSC + BM25 & .412 & .342 & .401 \\\\'), d.stdout);
    assert.ok(lines.includes('Cosine & .200 & .330$^{\\dagger}$ & .390 \\\\'), d.stdout);
    assert.ok(lines.includes('\\par\\footnotesize $^{\\dagger}$ differs from the best system (paired test, Holm-corrected p $<$ .05)'), d.stdout);
    // rows that carry Table 2's 'significant (MAP)' (the one rule: CI and Holm p) are marked by it, not by p alone:
    // Cosine's Holm p .04 sits beside a CI that includes 0, so the verdicts do not call it significant, nor does the mark
    const ruled = path.join(dir, 'table2-ruled.json');
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>[];
    fs.writeFileSync(ruled, JSON.stringify(rows.map((r) => ({ ...r, 'significant (MAP)': r.system === 'BM25' ? true : r.system === 'Cosine' ? false : null }))));
    const rd = exportOf(ruled);
    assert.is(rd.status, 0, rd.stderr);
    const rl = rd.stdout.split('\n');
    assert.ok(rl.includes('Cosine & .200 & .330 & .390 \\\\'), rd.stdout);
    assert.ok(rl.includes('BM25 & .348 & .280$^{\\dagger}$ & .310$^{\\dagger}$ \\\\'), rd.stdout);
    assert.match(rd.stdout, /differs significantly from the best system \(paired bootstrap 95\\% CI excludes 0 and Holm-corrected p \$<\$ \.05\)/);
    // the system column comes first even when not asked; integers as integers; differences in the table's format
    const c = eo('--columns', 'trainable params,ΔMAP vs best [95% CI],note');
    assert.is(c.status, 0, c.stderr);
    const cl = c.stdout.split('\n');
    assert.ok(cl.includes('system & trainable params & $\\Delta$MAP vs best [95\\% CI] & note \\\\'), c.stdout);
    assert.ok(cl.includes('BM25 & 0 & $-$.083 [$-$.120, $-$.046] & $\\alpha$ = 0.4 $<$ 1 \\\\'), c.stdout);
    assert.ok(cl.includes('NN-SSC + BM25 & 2890240 &  & $\\alpha$ = 0.4 $<$ 1 \\\\'), c.stdout);
    assert.ok(cl.includes('Cosine & 0 & $-$.012 [$-$.050, +.020] & $\\alpha$ = 0.4 $<$ 1 \\\\'), c.stdout);
    assert.not.match(c.stdout, /2890240\.000|-0\.083|dagger/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
