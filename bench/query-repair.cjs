#!/usr/bin/env node
// What query repair (lib/search/repair.ts) does to ranking, measured in one run with BM25 on the benchmark's test
// split (title queries, issue 21 item 5):
//   1. the titles as written: BM25 vs BM25 on the repaired text (repair should change little here);
//   2. the titles with typos put in (seeded): one word of 5+ letters per query (no identifier, no function word, its
//      first letter kept) gets one edit — a letter dropped, doubled, swapped with the next, or replaced by a
//      keyboard neighbour; BM25 as typed vs repaired, beside the clean titles; how many typos repair undid exactly;
//   3. the same for short keyword queries made from the titles (their first 3 words of 5+ letters, as users type
//      2–5 words), each with a typo in one of them.
// Paired bootstrap CIs and randomization p (10,000 each, seed 42). Also the vocabulary's build time.
// Usage: node bench/query-repair.cjs [--sample] [--seed 21] [--out bench/out/query-repair.json]   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'what query repair does to BM25 ranking on the test split: titles and keyword queries as written and with seeded typos, paired',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    seed: { type: 'int', default: 21, help: 'seed of the typos' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/query-repair.json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/router'), ...require('../dist/lib/search'), ...require('../dist/lib/util') };
const { sample, seed } = args;
const outFile = args.out ?? path.join(__dirname, 'out', 'query-repair.json');
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];

/** Keyboard neighbours (QWERTY) of each letter: the substitutions people make. */
const NEIGHBOURS = {
  q: 'wa', w: 'qes', e: 'wrd', r: 'etf', t: 'ryg', y: 'tuh', u: 'yij', i: 'uok', o: 'ipl', p: 'ol', a: 'qsz', s: 'awdz', d: 'sefx', f: 'drgc',
  g: 'fthv', h: 'gyjb', j: 'hukn', k: 'jilm', l: 'kop', z: 'asx', x: 'zsdc', c: 'xdfv', v: 'cfgb', b: 'vghn', n: 'bhjm', m: 'njk',
};

/** One typo in `w` (not its first letter), by the seeded generator. */
function typo(w, rng) {
  const i = 1 + Math.floor(rng() * (w.length - 1));
  const kind = Math.floor(rng() * 4);
  const c = w[i].toLowerCase();
  if (kind === 0) return w.slice(0, i) + w.slice(i + 1); // dropped
  if (kind === 1) return w.slice(0, i) + w[i] + w.slice(i); // doubled
  if (kind === 2 && i < w.length - 1 && w[i] !== w[i + 1]) return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2); // swapped
  const nb = NEIGHBOURS[c] ?? 'e';
  return w.slice(0, i) + nb[Math.floor(rng() * nb.length)] + w.slice(i + 1); // neighbour key
}

async function main() {
  const t0 = performance.now();
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const bm25 = eo.loadOrBuildBm25(corpus);
  eo.loadGazetteer(); // loaded before the vocabulary by the service too
  const vocab = eo.buildRepairVocabulary(corpus);
  const test = eo.benchmarkSplit(bench, 'test');
  const english = vocab.english;
  const rng = eo.mulberry32(seed);

  const eligibleWord = (w) => /^[A-Za-z][a-z]{4,}$/.test(w) && !english.has(w.toLowerCase()) && !vocab.identifiers.has(w.toLowerCase());
  /** The queries with one typo in one eligible word each (queries without one stay as they are), and the typos. */
  const withTypos = (queries) => {
    const typos = [];
    const out = queries.map((q) => {
      const words = q.text.split(' ');
      const eligible = words.map((w, i) => [w, i]).filter(([w]) => eligibleWord(w));
      if (eligible.length === 0) return q;
      const [w, i] = eligible[Math.floor(rng() * eligible.length)];
      const bad = typo(w, rng);
      typos.push({ query: q.id, word: w, typo: bad });
      words[i] = bad;
      return { ...q, text: words.join(' ') };
    });
    return { queries: out, typos };
  };
  const titles = test.queries;
  const keywords = titles.map((q) => ({ ...q, text: q.text.split(' ').filter(eligibleWord).slice(0, 3).join(' ') })).filter((q) => q.text.split(' ').length >= 2);
  const qrels = test.qrels;
  const evaluate = (queries, repair) => {
    const texts = queries.map((q) => (repair ? (eo.repairQuery(q.text, vocab)?.repaired ?? q.text) : q.text));
    const run = eo.runFromScores(queries.map((q) => q.id), texts.map((t) => eo.bm25Scores(bm25, t)), corpus, 100);
    return eo.evaluateRun(run, new Map([...qrels].filter(([id]) => queries.some((q) => q.id === id))));
  };
  const row = (system, pq, against) => {
    const r = eo.summarize(system, pq);
    const cmp = against ? eo.compareSystems(pq, against, METRICS, { seed: 42 }) : [];
    return { ...r, vs: cmp.map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) };
  };
  const replacedBy = (queries) => queries.filter((q) => eo.repairQuery(q.text, vocab)?.changes.some((c) => ['spelling', 'split', 'join'].includes(c.reason))).length;
  console.log(`BM25 on the test split (${titles.length} title queries, ${keywords.length} keyword queries made from them; typos seed ${seed}), ${corpus.datasets.length} datasets`);
  console.log(`repair vocabulary: ${vocab.buildMs.toFixed(0)} ms (${Object.entries(vocab.buildStages).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}), load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  const sets = {};
  for (const [name, queries] of [['titles', titles], ['keywords', keywords]]) {
    const typoed = withTypos(queries);
    const clean = evaluate(queries, false);
    const cleanRepaired = evaluate(queries, true);
    const asTyped = evaluate(typoed.queries, false);
    const repaired = evaluate(typoed.queries, true);
    let undone = 0;
    for (const t of typoed.typos) {
      const r = eo.repairQuery(typoed.queries.find((x) => x.id === t.query).text, vocab);
      if (r?.changes.some((c) => c.from === t.typo && c.to.toLowerCase() === t.word.toLowerCase())) undone++;
    }
    const rows = [
      row(`BM25, ${name} as written`, clean, null),
      row(`BM25, ${name} as written, repaired`, cleanRepaired, clean),
      row(`BM25, ${name} with a typo`, asTyped, clean),
      row(`BM25, ${name} with a typo, repaired`, repaired, asTyped),
    ];
    const recovered = (rows[3].MAP - rows[2].MAP) / Math.max(1e-12, rows[0].MAP - rows[2].MAP);
    for (const r of rows) {
      const d = r.vs.filter((c) => c.metric === 'MAP' || c.metric === 'R@10').map((c) => `Δ${c.metric} ${c.delta >= 0 ? '+' : ''}${c.delta.toFixed(4)} [${c.ci[0].toFixed(4)}, ${c.ci[1].toFixed(4)}] p ${c.p.toPrecision(2)}`).join('  ');
      console.log(`${r.system.padEnd(40)} ${METRICS.map((m) => `${m} ${r[m].toFixed(4)}`).join('  ')}  ${d}`);
    }
    const changedClean = replacedBy(queries);
    console.log(`${name} as written with a word replaced by repair: ${changedClean}/${queries.length}; typos undone exactly: ${undone}/${typoed.typos.length}; MAP lost to the typos and won back: ${(100 * recovered).toFixed(0)}%\n`);
    sets[name] = { queries: queries.length, typos: typoed.typos.length, changedClean, undone, recoveredMapShare: recovered, rows, typoExamples: typoed.typos.slice(0, 20) };
  }
  const out = {
    created: new Date().toISOString(), header, sample, seed, corpus: corpus.hash, buildMs: vocab.buildMs, buildStages: vocab.buildStages, test: sets,
    seconds: (performance.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  eo.writeFileAtomic(outFile, JSON.stringify(out, null, 2));
  console.log(`written ${path.relative(process.cwd(), outFile)} (${out.seconds.toFixed(1)} s)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
