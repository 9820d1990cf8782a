#!/usr/bin/env node
// What BM25's index reads, issue 38, tried on the style benchmark's DEV half only, each scored alone (no query rules)
// by nDCG@10 over all dev queries with the per-style means beside it:
//   identifier-forms (step 3): the plain word analyzer, and the joined forms added ("Sentinel-1A" also `sentinel1a`,
//     `sentinel1`; "Level 2" also `l2`; "V006" also `v6`; `Bm25Options.identifierForms`);
//   inferred-metadata (step 4): CMR's platforms and instruments only, or CMR's else the GCMD names inferred from the
//     title with their payloads and hosts (`Bm25Options.inferredMetadata`);
//   inferred-reading: the texts the corpus's GCMD inference reads (`inferCorpusGcmd`): title and short name, or the
//     abstract too where they name no platform or instrument (`abstract-fallback`), with the inferred metadata indexed;
//     the reading with the higher dev nDCG@10 is chosen;
//   provider-unlisted: the corpus's inference with and without the names each provider's CMR records leave out though
//     their titles name them (`learnProviderUnlisted`), kept unless worse (as inferred-metadata).
//   title-cues: the corpus's inference with and without the projects CMR lists after words of the title
//     (`learnTitleCues`), kept unless worse (as inferred-metadata).
//   short-name-neighbours: the corpus's inference with and without an empty field filled from the records of the
//     longest shared short-name prefix (`shortNameNeighbourNames`), kept unless worse (as inferred-metadata).
//   field-boosts: one BM25 over the whole record (`mode: 'combined'`, the paper's Okapi BM25) against one lunr field
//     per record field with their scores summed (`mode: 'fields'`), unboosted, with the title and short name boosted,
//     and with CMR's own relevancy boosts (`Bm25Options.fieldBoosts`); the best by dev nDCG@10 is marked chosen.
// Each study is appended to the committed tuning log (bench/tuning-log.json). identifier-forms marks its better setting
// `chosen`; inferred-metadata adds words the dev half's queries hardly need (a payload, a host, a series), so it keeps
// them unless the paired 95% CI of the difference (with − without, nDCG@10, 10,000 bootstrap samples, seed 42) lies
// wholly below 0 on the dev half. The test half is never read.
//   node bench/bm25-forms-tune.cjs [--study identifier-forms|inferred-metadata|inferred-reading|provider-unlisted|title-cues|short-name-neighbours|field-boosts|all] [--sample] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devVectorEvaluation, scoresLine, tuningRun, appendTuningRun, pairedDevDifference, TUNING_FLAGS } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'BM25 with and without the identifier forms, and with and without the inferred platforms and instruments, on the style benchmark DEV half (nDCG@10, all styles): appended to bench/tuning-log.json',
  flags: {
    study: { type: 'string', default: 'all', choices: ['identifier-forms', 'inferred-metadata', 'inferred-reading', 'provider-unlisted', 'title-cues', 'short-name-neighbours', 'field-boosts', 'all'], help: 'the study run' },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/data/snapshot'), ...require('../dist/lib/data/gcmd-infer') };

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const half = styleDevHalf(eo, corpus);
  const gcmdDir = eo.gcmdDirFor(eo.resolveDataDir(undefined, { sample: args.sample }));
  const dev = half.queries;
  console.log(`style benchmark DEV half: ${dev.length} queries; ${corpus.datasets.length} datasets`);
  const studies = {
    'identifier-forms': { system: 'bm25-identifier-forms', tried: [{ identifierForms: false, inferredMetadata: false }, { identifierForms: true, inferredMetadata: false }] },
    'inferred-metadata': { system: 'bm25-inferred-metadata', tried: [{ identifierForms: true, inferredMetadata: false }, { identifierForms: true, inferredMetadata: true }], keepUnlessWorse: true },
    'inferred-reading': {
      system: 'bm25-inferred-reading',
      tried: [{ identifierForms: true, inferredMetadata: true }, { identifierForms: true, inferredMetadata: true }],
      readings: [{ sources: ['title', 'short-name'] }, { sources: ['title', 'short-name', 'abstract-fallback'] }],
    },
    'provider-unlisted': {
      system: 'bm25-provider-unlisted',
      tried: [{ identifierForms: true, inferredMetadata: true }, { identifierForms: true, inferredMetadata: true }],
      readings: [{ providerUnlisted: false }, { providerUnlisted: true }],
      keepUnlessWorse: true,
    },
    'title-cues': {
      system: 'bm25-title-cues',
      tried: [{ identifierForms: true, inferredMetadata: true }, { identifierForms: true, inferredMetadata: true }],
      readings: [{ titleCues: false }, { titleCues: true }],
      keepUnlessWorse: true,
    },
    'short-name-neighbours': {
      system: 'bm25-short-name-neighbours',
      tried: [{ identifierForms: true, inferredMetadata: true }, { identifierForms: true, inferredMetadata: true }],
      readings: [{ neighbours: false }, { neighbours: true }],
      keepUnlessWorse: true,
    },
    'field-boosts': {
      system: 'bm25-field-boosts',
      tried: [
        { mode: 'combined' },
        { mode: 'fields' },
        { mode: 'fields', fieldBoosts: { longName: 2, shortName: 2 } },
        { mode: 'fields', fieldBoosts: { longName: 3, shortName: 3 } },
        // CMR's relevancy boosts (lib/retrieve/bm25.ts)
        { mode: 'fields', fieldBoosts: { shortName: 1.4, projects: 1.3, platforms: 1.3, instruments: 1.2, keywords: 1.2, temporal: 1.1 } },
      ],
    },
  };
  const chosen = args.study === 'all' ? Object.keys(studies) : [args.study];
  for (const name of chosen) {
    const study = studies[name];
    if (!study) throw new Error(`--study must be identifier-forms, inferred-metadata, inferred-reading, provider-unlisted, title-cues, short-name-neighbours, field-boosts or all (got ${args.study})`);
    const entry = tuningRun(study.system, half, 'bench/bm25-forms-tune.cjs');
    const entries = [];
    const perQuery = [];
    for (const [i, options] of study.tried.entries()) {
      const reading = study.readings?.[i];
      if (reading) eo.inferCorpusGcmd(corpus.datasets, gcmdDir, reading);
      const index = eo.buildBm25(corpus, options);
      const vectors = dev.map((q) => eo.bm25Scores(index, q.text));
      const { scores, perQuery: pq } = devVectorEvaluation(eo, half, corpus, vectors);
      perQuery.push(pq);
      const settings = { ...options, ...(reading ? { inference: reading } : {}) };
      entries.push(entry({ ...settings, k1: index.config.k1, b: index.config.b, mode: index.config.mode }, scores));
      console.log(`${name}: ${JSON.stringify(settings).padEnd(50)}  ${scoresLine(scores, half)}`);
    }
    if (study.readings) eo.inferCorpusGcmd(corpus.datasets, gcmdDir); // back to the corpus's own reading
    let best;
    if (study.keepUnlessWorse) {
      const { d, text } = pairedDevDifference(perQuery[1], perQuery[0]);
      const worse = d.ciHigh < 0;
      best = worse ? 0 : 1;
      entries[best].chosen = true;
      entries[best].note = `${text}: ${worse ? 'worse, so left out' : 'not worse, so kept'}`;
      console.log(`${name}: ${entries[best].note}`);
    } else best = eo.markBestChosen(entries, TUNING_METRIC);
    console.log(`${name} chosen: ${JSON.stringify(study.tried[best])}`);
    appendTuningRun(eo, entries, args);
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
