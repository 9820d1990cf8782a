// scripts/docs-measurements.cjs: the measurements page is generated from bench JSON when present, keeps the
// hand-recorded part verbatim, refuses a bench file of another format naming it, and the committed
// docs/measurements.md is the script's output (nobody edited the generated page by hand).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../lib/util';

const root = repoRoot();
const script = path.join(root, 'scripts', 'docs-measurements.cjs');

function run(args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
}

/** Runs fn in a fresh temp folder, removed afterwards whatever happens. */
function inTmpDir(fn: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-measurements-'));
  try {
    fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const RECORDED = '## A hand-recorded table\n\n| stage | wall |\n|---|---|\n| cold run | 10.9 min |\n';

function paperScale(cpuSeconds: number) {
  return {
    format: 'eo-paper-scale/1',
    created: '2026-11-30T08:15:00.000Z',
    quick: false,
    seed: 42,
    machine: { node: 'v20', cores: 2, cpu: 'Test CPU', loadavg: [1.25, 1, 0.5], memoryGB: 8 },
    sizes: { measured: {}, paper: {} },
    stages: [
      { stage: 'BM25 index build', n: 8058, unit: 'datasets', seconds: 118.9, cpuSeconds, paperSeconds: 118.9, paperSecondsIdle: cpuSeconds, peakRssMB: 601, verdict: 'fits 2 cores' },
      { stage: 'NN-SSC epoch', n: 12, unit: 'steps', seconds: 13.4, cpuSeconds: 4.5, paperSeconds: 666000, paperSecondsIdle: 126000, peakRssMB: 788, verdict: 'needs a GPU' },
    ],
    llm: [],
    wallSeconds: 900,
  };
}

test('with bench JSON: a generated section from it, then the recorded part verbatim', () => {
  inTmpDir((dir) => {
    fs.mkdirSync(path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'out', 'paper-scale.json'), JSON.stringify(paperScale(15.2)));
    fs.writeFileSync(path.join(dir, 'recorded.md'), RECORDED);
    const page = path.join(dir, 'page.md');
    const r = run(['--bench-out', path.join(dir, 'out'), '--recorded', path.join(dir, 'recorded.md'), '--out', page]);
    assert.is(r.status, 0, r.stderr);
    const md = fs.readFileSync(page, 'utf8');
    assert.match(md, /## What paper scale costs, last run/);
    assert.match(md, /\| BM25 index build \| 8,058 datasets \| 118\.9 s \| 15\.2 s \| 118\.9 s \| 15\.2 s \| 601 \| fits 2 cores \|/);
    assert.match(md, /\| NN-SSC epoch \| 12 steps \|.*\| 35 h \| 788 \| needs a GPU \|/);
    assert.match(md, /Measured 2026-11-30 08:15 UTC on 2 cores \(Test CPU\)/);
    assert.ok(md.includes(RECORDED.trim()), 'the recorded part is kept verbatim');
    assert.ok(md.indexOf('What paper scale costs') < md.indexOf('A hand-recorded table'), 'generated first, recorded after');
    assert.not.match(md, /Not generated[^\n]*paper-scale\.json/, 'paper-scale.json is not listed as missing');
    assert.match(md, /Not generated[^\n]*`search-quality\.json`, `query-repair\.json`/, 'the absent ones are');
    // the numbers follow the JSON, not a copy
    fs.writeFileSync(path.join(dir, 'out', 'paper-scale.json'), JSON.stringify(paperScale(30.5)));
    assert.is(run(['--bench-out', path.join(dir, 'out'), '--recorded', path.join(dir, 'recorded.md'), '--out', page]).status, 0);
    assert.match(fs.readFileSync(page, 'utf8'), /\| BM25 index build \| 8,058 datasets \| 118\.9 s \| 30\.5 s \|/);
  });
});

test('query-repair JSON: one table per query set, metrics and the paired ΔMAP with its CI; a row without a metric is refused', () => {
  inTmpDir((dir) => {
    fs.mkdirSync(path.join(dir, 'out'));
    const metrics = (map: number) => ({ 'R@10': 0.2, 'R@20': 0.25, 'R@100': 0.5, MAP: map, MRR: 0.3 });
    const repair = {
      created: '2026-11-29T10:00:00.000Z', sample: false,
      test: {
        keywords: {
          queries: 143, typos: 143, undone: 126, changedClean: 4,
          rows: [
            { system: 'BM25, keywords with a typo', ...metrics(0.0726), vs: [] },
            { system: 'BM25, keywords with a typo, repaired', ...metrics(0.107), vs: [{ metric: 'MAP', delta: 0.0344, ci: [0.004, 0.068], p: 0.021 }] },
          ],
        },
      },
    };
    fs.writeFileSync(path.join(dir, 'out', 'query-repair.json'), JSON.stringify(repair));
    fs.writeFileSync(path.join(dir, 'recorded.md'), RECORDED);
    const page = path.join(dir, 'page.md');
    const args = ['--bench-out', path.join(dir, 'out'), '--recorded', path.join(dir, 'recorded.md'), '--out', page];
    const r = run(args);
    assert.is(r.status, 0, r.stderr);
    const md = fs.readFileSync(page, 'utf8');
    assert.match(md, /\*\*keywords\*\* \(143 queries, 143 seeded typos; 126 undone exactly; 4 as written get a word replaced/);
    assert.match(md, /\| BM25, keywords with a typo \| 0\.2000 \| 0\.5000 \| 0\.0726 \| 0\.3000 \| — \|/);
    assert.match(md, /\| BM25, keywords with a typo, repaired \| 0\.2000 \| 0\.5000 \| 0\.1070 \| 0\.3000 \| \+0\.0344 \[\+0\.0040, \+0\.0680\], p 0\.021 \|/);
    assert.match(md, /Measured 2026-11-29 10:00 UTC\./);
    delete (repair.test.keywords.rows[1] as Record<string, unknown>).MAP;
    fs.writeFileSync(path.join(dir, 'out', 'query-repair.json'), JSON.stringify(repair));
    const bad = run(args);
    assert.is.not(bad.status, 0);
    assert.match(bad.stderr, /query-repair\.json: rows\[1\]\["MAP"\] must be a number/);
  });
});

test('a bench file of another format is refused, naming the file and the field; nothing is written', () => {
  inTmpDir((dir) => {
    fs.mkdirSync(path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'out', 'paper-scale.json'), JSON.stringify({ ...paperScale(1), format: 'something-else/1' }));
    fs.writeFileSync(path.join(dir, 'recorded.md'), RECORDED);
    const page = path.join(dir, 'page.md');
    const r = run(['--bench-out', path.join(dir, 'out'), '--recorded', path.join(dir, 'recorded.md'), '--out', page]);
    assert.is.not(r.status, 0);
    assert.match(r.stderr, /paper-scale\.json: field "format"/);
    assert.not.ok(fs.existsSync(page));
    assert.match(run(['--bench-out']).stderr, /--bench-out needs a value/);
    assert.match(run(['--nope', 'x']).stderr, /unknown argument --nope/);
  });
});

test('docs/measurements.md is the script output (no bench JSON: the recorded part stands)', () => {
  inTmpDir((dir) => {
    const page = path.join(dir, 'page.md');
    const r = run(['--bench-out', path.join(dir, 'none'), '--out', page]);
    assert.is(r.status, 0, r.stderr);
    const want = fs.readFileSync(page, 'utf8');
    assert.match(want, /Not generated \(no bench output on this checkout\): `paper-scale\.json`/);
    const have = fs.readFileSync(path.join(root, 'docs', 'measurements.md'), 'utf8');
    assert.is(have, want, 'regenerate with: node scripts/docs-measurements.cjs (and commit docs/measurements.md)');
  });
});

test('every section of the hand-recorded measurements appears once (an edit that pastes a section twice, or into every line, is caught)', () => {
  const text = fs.readFileSync(path.join(root, 'docs', 'measurements-recorded.md'), 'utf8');
  const headings = text.split('\n').filter((l) => l.startsWith('## '));
  assert.ok(headings.length >= 10, `${headings.length} sections`);
  const twice = [...new Set(headings.filter((h, i) => headings.indexOf(h) !== i))];
  assert.equal(twice, [], `sections written more than once: ${twice.slice(0, 3).join('; ')}`);
});

test.run();
