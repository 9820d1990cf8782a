#!/usr/bin/env node
// Writes docs/measurements.md: the sections that bench output JSON can give are generated from it (so the page says
// what the last run on this machine measured, not what someone copied), and the hand-recorded measurements that no
// bench writes as JSON follow, dated, from docs/measurements-recorded.md. Needs dist/ (`npm run build`).
//
//   node scripts/docs-measurements.cjs [--bench-out DIR] [--recorded FILE] [--out FILE]
//
// --bench-out  folder of bench JSON output (default bench/out/ of the checkout)
// --recorded   the hand-recorded part (default docs/measurements-recorded.md)
// --out        the page written (default docs/measurements.md)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = { benchOut: path.join(ROOT, 'bench', 'out'), recorded: path.join(ROOT, 'docs', 'measurements-recorded.md'), out: path.join(ROOT, 'docs', 'measurements.md') };
  const flags = { '--bench-out': 'benchOut', '--recorded': 'recorded', '--out': 'out' };
  for (let i = 0; i < argv.length; i++) {
    const key = flags[argv[i]];
    if (!key) throw new Error(`docs-measurements: unknown argument ${argv[i]} (flags: ${Object.keys(flags).join(', ')})`);
    const v = argv[++i];
    if (v === undefined || v === '') throw new Error(`docs-measurements: ${argv[i - 1]} needs a value`);
    o[key] = path.resolve(v);
  }
  return o;
}

function escapeCell(v) {
  if (v === null || v === undefined) return '—';
  return String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Rows of plain objects as a markdown table, columns in the first row's key order. */
function markdownTable(rows) {
  if (!rows.length) return '';
  const cols = Object.keys(rows[0]);
  const lines = [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${cols.map((c) => escapeCell(r[c])).join(' | ')} |`);
  return lines.join('\n');
}

const METRICS = ['R@10', 'R@100', 'MAP', 'MRR'];
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;

/** A bench's JSON, parsed; a file that is not JSON, or lacks a field the page needs, is an error naming both. */
function readJson(file, fields) {
  let o;
  try {
    o = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not JSON (${e.message})`);
  }
  for (const f of fields) {
    const v = f.split('.').reduce((x, k) => (x === null || x === undefined ? undefined : x[k]), o);
    if (v === undefined) throw new Error(`${file}: field "${f}" is missing`);
  }
  return o;
}

/**
 * Metric rows as the benches write them (`summarize` + paired comparisons): one table row each, the paired ΔMAP
 * with its 95% CI against the row the bench compared it with (field `vs` or `vsBm25`).
 */
function metricRows(file, rows) {
  return rows.map((r, i) => {
    if (typeof r.system !== 'string') throw new Error(`${file}: rows[${i}].system must be a string`);
    const out = { system: r.system };
    for (const m of METRICS) {
      if (typeof r[m] !== 'number') throw new Error(`${file}: rows[${i}]["${m}"] must be a number`);
      out[m] = r[m].toFixed(4);
    }
    const d = (r.vs ?? r.vsBm25 ?? []).find((c) => c.metric === 'MAP');
    out['ΔMAP [95% CI], p'] = d ? `${signed(d.delta)} [${signed(d.ci[0])}, ${signed(d.ci[1])}], p ${d.p.toPrecision(2)}` : '—';
    return out;
  });
}

const measuredOn = (o) => `*Measured ${String(o.created).slice(0, 16).replace('T', ' ')} UTC${o.sample ? ' on the sample snapshot' : ''}.*`;

/** Sections generated from bench JSON; each entry: the file it reads and how it renders. */
const GENERATED = [
  {
    file: 'paper-scale.json',
    title: 'What paper scale costs, last run (`bench/paper-scale.cjs`)',
    render(file, lessons) {
      const scale = lessons.readPaperScale(file);
      return `${markdownTable(lessons.paperScaleRows(scale))}\n\n${lessons.paperScaleVerdict(scale)}`;
    },
  },
  {
    file: 'search-quality.json',
    title: 'Period/place rule and vocabulary expansion, last run (`bench/search-quality.cjs`)',
    render(file) {
      const o = readJson(file, ['created', 'test.rows', 'test.queries', 'constrainedQueries.failBefore', 'constrainedQueries.failAfter', 'constrainedQueries.top10Results']);
      const c = o.constrainedQueries;
      return [
        `Test split, ${o.test.queries} queries (ΔMAP paired against the first row, bootstrap 95% CI):`, '',
        markdownTable(metricRows(file, o.test.rows)), '',
        `Hand-labelled constrained queries (${c.queries}): top-10 results outside the asked period/place ${c.failBefore}/${c.top10Results} with BM25, ` +
          `${c.failAfter}/${c.top10Results} with the rule; the router's parse agrees with the label on ${c.parseAgrees}/${c.queries}.`, '',
        measuredOn(o),
      ].join('\n');
    },
  },
  {
    file: 'query-repair.json',
    title: 'Query repair, last run (`bench/query-repair.cjs`)',
    render(file) {
      const o = readJson(file, ['created', 'test']);
      const parts = [];
      for (const [name, s] of Object.entries(o.test)) {
        if (!Array.isArray(s.rows)) throw new Error(`${file}: field "test.${name}.rows" must be an array`);
        parts.push(`**${name}** (${s.queries} queries, ${s.typos} seeded typos; ${s.undone} undone exactly; ${s.changedClean} as written get a word replaced; ` +
          `ΔMAP paired against the row before):`, '', markdownTable(metricRows(file, s.rows)), '');
      }
      parts.push(measuredOn(o));
      return parts.join('\n');
    },
  },
];

function buildPage({ benchOut, recorded }) {
  // the paper-scale table and its conclusion: notebook 01's lesson
  const lessons = require(path.join(ROOT, 'dist', 'lib', 'lessons'));
  const rel = (f) => path.relative(ROOT, f).split(path.sep).join('/');
  const parts = [
    '# Measurements',
    '',
    `Generated by \`node scripts/docs-measurements.cjs\` (do not edit by hand): the sections below the first rule come from the benches' JSON (\`bench/out/\`, or the folder \`--bench-out\` names) when present; the hand-recorded measurements, which no bench writes as JSON, follow from \`${rel(recorded)}\` (edit that file). Re-measure on your machine: the numbers depend on cores and load.`,
  ];
  const missing = [];
  for (const g of GENERATED) {
    const file = path.join(benchOut, g.file);
    if (!fs.existsSync(file)) {
      missing.push(g.file);
      continue;
    }
    parts.push('', '---', '', `## ${g.title}`, '', `*From \`${rel(file)}\`.*`, '', g.render(file, lessons));
  }
  if (missing.length) parts.push('', `*Not generated (no bench output on this checkout): ${missing.map((f) => `\`${f}\``).join(', ')}; the recorded numbers stand for them (below; the query rules' in [methods.md](methods.md)).*`);
  if (!fs.existsSync(recorded)) throw new Error(`docs-measurements: the recorded measurements file ${recorded} is missing`);
  parts.push('', '---', '', '# Recorded by hand', '', fs.readFileSync(recorded, 'utf8').trim(), '');
  return parts.join('\n');
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const { writeFileAtomic } = require(path.join(ROOT, 'dist', 'lib', 'util'));
  writeFileAtomic(args.out, buildPage(args));
  console.log(`wrote ${path.relative(process.cwd(), args.out) || args.out}`);
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    console.error(`docs-measurements: ${e.message}`);
    process.exit(1);
  }
}
module.exports = { buildPage, markdownTable };
