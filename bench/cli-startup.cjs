#!/usr/bin/env node
// Benchmark: start-up of `eo search`, old path vs new, measured in this one run (fresh node processes, the two
// variants interleaved so machine load hits both alike).
//   old: the CLI as it was: it required lib/index.js (every stage: Fastify, both LLM SDKs, hnswlib, tfjs, …)
//        and then ran the command. Reproduced by requiring dist/lib/index.js and @tensorflow/tfjs (which
//        lib/tensor/backend.ts then imported at load; it now loads it on first use) before dist/lib/cli/eo.js.
//   new: dist/lib/cli/eo.js as built: per-module imports, `eo serve`'s service loaded only for `eo serve`.
// Prints, per variant, the median of --runs: module-load time (require of the entry, in-process), time to the
// first result (`eo search … --json`, spawn to exit, after one warm-up run that builds the BM25 cache), and which
// heavy packages each one loads.
//   node bench/cli-startup.cjs [--sample] [--runs 5] [--retriever bm25|best|cosine|nnssc] [--query "sea ice extent in the Arctic"]
//   (--help lists the flags)
'use strict';
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'start-up of `eo search` (module load, time to the first result, heavy packages loaded), the old all-stages path vs the CLI as built',
  flags: {
    sample: { type: 'boolean', help: 'search the 200-dataset sample snapshot' },
    runs: { type: 'int', default: 5, min: 1, help: 'timed runs per variant (the median is printed)' },
    retriever: { type: 'string', default: 'bm25', choices: ['best', 'bm25', 'cosine', 'nnssc'], help: "`eo search`'s --retriever" },
    query: { type: 'string', default: 'sea ice extent in the Arctic', help: 'the query searched' },
  },
});
printHeader(args);
const { sample, runs, retriever, query } = args;

const dist = path.resolve(__dirname, '..', 'dist', 'lib');
const INDEX = path.join(dist, 'index.js');
const EO = path.join(dist, 'cli', 'eo.js');
const HEAVY = ['fastify', '@fastify/rate-limit', 'openai', '@anthropic-ai/sdk', 'hnswlib-node', '@tensorflow/tfjs', 'lunr', 'chrono-node', 'playwright-core'];

// Child program: time the requires of `pre` (old path) and of eo.js with `argv`; print one JSON line on stderr
// when the process exits. `eo --help` gives the CLI's module-load time (it prints the usage and returns).
const child = (pre, argv) => `
const t0 = process.hrtime.bigint();
${pre.map((p) => `require(${JSON.stringify(p)});`).join('\n')}
process.argv = [process.execPath, ${JSON.stringify(EO)}, ...${JSON.stringify(argv)}];
require(${JSON.stringify(EO)});
const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
const heavy = ${JSON.stringify(HEAVY)}.filter((p) => Object.keys(require.cache).some((f) => f.includes('/node_modules/' + p + '/')));
process.on('exit', () => process.stderr.write('\\n@@' + JSON.stringify({ loadMs, heavy, modules: Object.keys(require.cache).length }) + '\\n'));
`;

function run(pre, argv) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-e', child(pre, argv)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallMs = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`eo ${argv.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const m = /@@(\{.*\})\s*$/.exec(r.stderr);
  if (!m) throw new Error(`no timing line from eo ${argv.join(' ')}:\n${r.stderr}`);
  return { wallMs, stdout: r.stdout, ...JSON.parse(m[1]) };
}

const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const searchArgv = ['search', query, '--retriever', retriever, '--json', ...(sample ? ['--sample'] : [])];
const variants = { old: [INDEX, require.resolve('@tensorflow/tfjs')], new: [] };

// warm-up: builds the BM25 / embedding caches once, and checks both variants give the same ranking
const firstIds = {};
for (const [name, pre] of Object.entries(variants)) firstIds[name] = JSON.parse(run(pre, searchArgv).stdout).results.map((r) => r.id);
if (JSON.stringify(firstIds.old) !== JSON.stringify(firstIds.new)) throw new Error('old and new CLI rank differently');

const res = { old: { load: [], search: [] }, new: { load: [], search: [] } };
let info = {};
for (let i = 0; i < runs; i++) {
  for (const [name, pre] of Object.entries(variants)) {
    const h = run(pre, ['--help']);
    res[name].load.push(h.loadMs);
    const s = run(pre, searchArgv);
    res[name].search.push(s.wallMs);
    info[name] = { heavyOnHelp: h.heavy, heavyOnSearch: s.heavy, modules: s.modules };
  }
}

const line = (k, v) => console.log(`${k.padEnd(46)} ${v}`);
console.log(`eo search start-up: "${query}" --retriever ${retriever}${sample ? ' --sample' : ''}; median of ${runs} runs`);
for (const name of ['old', 'new']) {
  line(`${name}: module load (require entry + eo --help)`, `${median(res[name].load).toFixed(0)} ms`);
  line(`${name}: time to first result (spawn → exit)`, `${median(res[name].search).toFixed(0)} ms   (${info[name].modules} modules)`);
  line(`${name}: heavy packages loaded by eo search`, info[name].heavyOnSearch.join(', ') || '-');
}
line('module load old/new', `${(median(res.old.load) / median(res.new.load)).toFixed(2)}x`);
line('time to first result old/new', `${(median(res.old.search) / median(res.new.search)).toFixed(2)}x`);
