#!/usr/bin/env node
// Benchmark: load a synthetic NASA EO Knowledge Graph export of the real size and shape with the streaming
// loader (streamKgCorpus) and print wall time and peak RSS. Goal: <= 90 s and <= 2 GB RSS on 2 cores.
//   node bench/kg-synthetic.cjs [--scale 1] [--target-mb 0] [--gz] [--regenerate] [--sample]   (--help lists the flags)
// --scale multiplies every size (--sample: 0.05, a quick run); --target-mb pads titled publications with an `authors`
// list (parsed, then dropped by the loader) until the file is about that size (the published graph.json is
// ~1.5 GB; 0 = no padding). The export is written to bench/out/ (git-ignored) and reused while its options match.
// The load runs in a child process, so its peak RSS is the loader's alone; a second child only reads and parses
// every line, the floor any loader pays, and the ratio of the two is printed (the children: --load FILE, --floor FILE).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'streaming load (streamKgCorpus) of a synthetic NASA EO Knowledge Graph export of the real size: wall time, peak RSS, ratio to a read-and-parse floor',
  flags: {
    scale: { type: 'number', default: null, above: 0, defaultText: '1; 0.05 with --sample', help: 'multiplies every size of the export' },
    'target-mb': { type: 'number', default: 0, min: 0, help: 'pad titled publications until the file is about this size (0: no padding)' },
    gz: { type: 'boolean', help: 'load a gzip copy of the export' },
    regenerate: { type: 'boolean', help: 'write the export again even when its options match' },
    sample: { type: 'boolean', help: 'a quick run: --scale 0.05 unless given' },
    load: { type: 'string', default: null, placeholder: 'FILE', help: 'internal (child process): load FILE with the loader, print one JSON line' },
    floor: { type: 'string', default: null, placeholder: 'FILE', help: 'internal (child process): read and JSON.parse every line of FILE, print one JSON line' },
  },
});

const GOAL_S = 90;
const GOAL_RSS_MB = 2048;

if (args.floor !== null) {
  // Child: the least any loader must do — read every line and JSON.parse it — as the yardstick for the loader.
  const { forEachLine } = require('../dist/lib/data');
  const t0 = process.hrtime.bigint();
  let n = 0;
  forEachLine(args.floor, (line) => {
    if (line !== '') n += JSON.parse(line) ? 1 : 0;
  }).then(() => {
    process.stdout.write(JSON.stringify({ wallS: Number(process.hrtime.bigint() - t0) / 1e9, maxRssMb: process.resourceUsage().maxRSS / 1024, lines: n }) + '\n');
  });
  return;
}

if (args.load !== null) {
  // Child: load the export, print one JSON line.
  const eo = require('../dist/lib/data');
  const file = args.load;
  const t0 = process.hrtime.bigint();
  eo.streamKgCorpus(file).then(({ corpus, report }) => {
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    const maxRssMb = process.resourceUsage().maxRSS / 1024;
    const { examples, ...counts } = report;
    process.stdout.write(JSON.stringify({ wallS, maxRssMb, datasets: corpus.datasets.length, publications: corpus.publications.length, links: corpus.links.length, counts }) + '\n');
  }, (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  });
  return;
}

const scale = args.scale ?? (args.sample ? 0.05 : 1);
const targetMb = args.targetMb;
const gz = args.gz;
printHeader(args, { extra: { '--scale': scale } });
const { PAPER_KG_SIZE, plan, writeSyntheticKgExport } = require('./lib/kg-synthetic-core.cjs');
const sizeKeys = ['datasets', 'publications', 'relationships', 'usesPublications', 'usesEdges', 'citesDatasetEdges', 'scienceKeywords', 'platforms', 'instruments', 'projects', 'dataCenters'];
const sizes = {};
for (const k of sizeKeys) sizes[k] = Math.max(1, Math.round(PAPER_KG_SIZE[k] * scale));
// Unpadded, the generator writes about 0.2 KB per stub, 1.6 KB per titled publication and dataset, 0.15 KB per edge.
const p = plan(sizes);
const titled = sizes.usesPublications + p.titledNoUses;
const baseMb = (p.stubs * 0.2 + (titled + sizes.datasets) * 1.6 + sizes.relationships * 0.15) / 1024;
const padChars = targetMb > baseMb ? Math.round(((targetMb - baseMb) * 1024 * 1024) / titled) : 0;
const options = { ...sizes, padChars, seed: 1 };

const outDir = path.join(__dirname, 'out');
const file = path.join(outDir, `kg-synthetic-${scale}-${targetMb}.jsonl`);
const meta = `${file}.options.json`;
const same = fs.existsSync(file) && fs.existsSync(meta) && fs.readFileSync(meta, 'utf8') === JSON.stringify(options);
let expected = plan(options).expected;
if (!same || args.regenerate) {
  const t = Date.now();
  const r = writeSyntheticKgExport(file, options);
  fs.writeFileSync(meta, JSON.stringify(options));
  expected = r.expected;
  console.log(`generated ${file} (${(r.bytes / 1048576).toFixed(0)} MB) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
let loadFile = file;
if (gz) {
  loadFile = `${file}.gz`;
  if (!fs.existsSync(loadFile) || fs.statSync(loadFile).mtimeMs < fs.statSync(file).mtimeMs) {
    execFileSync('sh', ['-c', `gzip -1 -c '${file}' > '${loadFile}.tmp' && mv '${loadFile}.tmp' '${loadFile}'`]);
  }
}
const mb = fs.statSync(loadFile).size / 1048576;
console.log(`sizes: ${sizes.datasets} Dataset, ${sizes.publications} Publication (${p.stubs} empty-title stubs = ${(PAPER_KG_SIZE.stubShareOfRest * 100).toFixed(0)}% of those without USES_DATASET), ${sizes.relationships} relationships; file ${mb.toFixed(0)} MB${gz ? ' (gzip)' : ''}`);

const out = execFileSync(process.execPath, [__filename, '--load', loadFile], { encoding: 'utf8', maxBuffer: 1 << 24 });
const r = JSON.parse(out.trim().split('\n').pop());
const floor = JSON.parse(execFileSync(process.execPath, [__filename, '--floor', loadFile], { encoding: 'utf8' }).trim().split('\n').pop());
const { format, ...counts } = r.counts;
const ok = JSON.stringify(sortKeys(counts)) === JSON.stringify(sortKeys(expected));
console.log(`load: ${r.wallS.toFixed(1)} s wall, peak RSS ${r.maxRssMb.toFixed(0)} MB  (goal <= ${GOAL_S} s, <= ${GOAL_RSS_MB} MB: ${r.wallS <= GOAL_S && r.maxRssMb <= GOAL_RSS_MB ? 'met' : 'NOT met'})`);
console.log(`floor (read + JSON.parse every line, nothing kept): ${floor.wallS.toFixed(1)} s; loader / floor = ${(r.wallS / floor.wallS).toFixed(2)}`);
console.log(`throughput: ${(mb / r.wallS).toFixed(1)} MB/s; corpus ${r.datasets} datasets, ${r.publications} publications, ${r.links} links; counts report ${ok ? 'matches the generator' : 'DIFFERS from the generator'}`);
if (!ok) {
  console.log(JSON.stringify({ got: counts, expected }, null, 2));
  process.exitCode = 1;
}

function sortKeys(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}
