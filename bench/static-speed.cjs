#!/usr/bin/env node
// Speed of the corpus-trained static encoder against USE-lite on onnxruntime-node (2 intra-op threads), in ONE run with
// interleaved rounds (issue 37 step 4): corpus texts per second (each encoder embeds the same seeded sample of dataset
// texts, in its own text form: USE-lite shortName + longName + abstract[:512], static title | keywords | abstract),
// queries per second at batch 1 (corpus titles), the ratio static / USE-lite, and the static encoder's training time
// (as its checkpoint recorded it; trained here when there is none).
//   node bench/static-speed.cjs [--sample] [--texts 1000] [--queries 200] [--rounds 3]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'texts/s of the static encoder vs USE-lite on onnxruntime (2 threads), corpus texts and single queries, one run; the static encoder\'s training time',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    texts: { type: 'int', default: 1000, min: 1, help: 'corpus texts embedded per round (a seeded random sample)' },
    queries: { type: 'int', default: 200, min: 1, help: 'single queries embedded per round (batch 1)' },
    rounds: { type: 'int', default: 3, min: 1, help: 'interleaved rounds (the median is printed)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample: args.sample }));
  const art = await eo.loadOrTrainStaticModel({ corpus, bench, log: (l) => console.log(l) });
  console.log(`static encoder ${art.model.id}: ${art.trained ? 'trained in this run' : 'checkpoint'} ${art.dir}; training ${art.trainingSeconds.toFixed(1)} s on ${art.pairs.count} pairs`);
  const rows = eo.shuffleInPlace(corpus.datasets.map((_, i) => i), eo.mulberry32(42)).slice(0, Math.min(args.texts, corpus.datasets.length));
  const titles = rows.slice(0, args.queries).map((r) => corpus.datasets[r].longName);
  const encoders = [
    { name: 'static', enc: eo.staticEncoder(art.model), text: (d) => eo.staticDocumentText(d) },
    { name: 'USE-lite (onnx, 2 threads)', enc: await eo.loadUseLite({ runtime: 'onnx', intraOpThreads: 2 }), text: (d) => eo.datasetEncoderText(d) },
  ];
  const rates = Object.fromEntries(encoders.map((e) => [e.name, { texts: [], queries: [] }]));
  for (let round = 0; round < args.rounds; round++) {
    for (const e of encoders) {
      const texts = rows.map((r) => e.text(corpus.datasets[r]));
      let t = performance.now();
      await e.enc.embed(texts);
      rates[e.name].texts.push(texts.length / ((performance.now() - t) / 1000));
      t = performance.now();
      for (const q of titles) await e.enc.embed([q]);
      rates[e.name].queries.push(titles.length / ((performance.now() - t) / 1000));
    }
  }
  const out = {};
  for (const e of encoders) {
    out[e.name] = { textsPerSecond: median(rates[e.name].texts), queriesPerSecond: median(rates[e.name].queries) };
    console.log(`${e.name.padEnd(28)} corpus texts ${out[e.name].textsPerSecond.toFixed(1).padStart(9)}/s   single queries ${out[e.name].queriesPerSecond.toFixed(1).padStart(9)}/s`);
  }
  const [s, u] = encoders.map((e) => out[e.name]);
  console.log(`static / USE-lite: corpus texts ${(s.textsPerSecond / u.textsPerSecond).toFixed(0)}×, single queries ${(s.queriesPerSecond / u.queriesPerSecond).toFixed(0)}×`);
  console.log(`full corpus (${corpus.datasets.length} texts): static ${(corpus.datasets.length / s.textsPerSecond).toFixed(1)} s, USE-lite ${(corpus.datasets.length / u.textsPerSecond).toFixed(0)} s`);
  for (const e of encoders) e.enc.dispose();
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
