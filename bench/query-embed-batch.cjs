#!/usr/bin/env node
// Does a micro-batch make query embedding cheaper per query? One run, same texts: 16 queries embedded one call each
// vs one call of 16 (and of 4), on the workbench's chosen encoder (default `chosenEncoderSpec()`: $EO_ENCODER, else
// USE-lite on its default runtime, onnx where onnxruntime-node loads; --encoder-spec JSON for another, e.g.
// '{"kind":"use-lite","options":{"runtime":"tfjs"}}'). Embeds the sample snapshot's titles. Prints ms per query and the
// ratio batch/singles.
//   node bench/query-embed-batch.cjs [--rounds 3] [--encoder-spec JSON]   (--help lists the flags)
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'query embedding per query: 16 single calls vs batches of 4 vs one batch of 16, same texts',
  flags: {
    rounds: { type: 'int', default: 3, min: 1, help: 'rounds of 16 fresh queries (the median is printed)' },
    'encoder-spec': { type: 'json', default: null, defaultText: 'chosenEncoderSpec()', help: 'an EncoderSpec of createEncoder' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/encode') };
const rounds = args.rounds;
const spec = args.encoderSpec ?? eo.chosenEncoderSpec();

(async () => {
  const encoder = await eo.createEncoder(spec);
  const corpus = eo.loadSnapshot({ sample: true });
  // service-like queries: the first words of titles, with a place and a period
  const texts = corpus.datasets.map((d, i) => `${d.longName.split(/\s+/).slice(0, 3 + (i % 5)).join(' ')} over India since 2015`);
  await encoder.embed(texts.slice(0, 4)); // warm-up
  const per = { single: [], b4: [], b16: [] };
  for (let r = 0; r < rounds; r++) {
    const qs = texts.slice(16 * (r + 1), 16 * (r + 2));
    let t = performance.now();
    for (const q of qs) await encoder.embed([q]);
    per.single.push((performance.now() - t) / 16);
    t = performance.now();
    for (let i = 0; i < 16; i += 4) await encoder.embed(qs.slice(i, i + 4));
    per.b4.push((performance.now() - t) / 16);
    t = performance.now();
    await encoder.embed(qs);
    per.b16.push((performance.now() - t) / 16);
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const s = med(per.single), b4 = med(per.b4), b16 = med(per.b16);
  console.log(`${encoder.id} (${encoder.backend ?? '?'}), median of ${rounds} rounds of 16 queries: singles ${s.toFixed(1)} ms/query, batches of 4 ${b4.toFixed(1)} ms/query (×${(b4 / s).toFixed(2)}), one batch of 16 ${b16.toFixed(1)} ms/query (×${(b16 / s).toFixed(2)})`);
  encoder.dispose();
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
