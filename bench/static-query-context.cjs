#!/usr/bin/env node
// Would the static encoder read research questions better without their places and periods? The encoder alone (its
// default checkpoint and feedback, as notebook 05 scores it) on the style benchmark's DEV half, each query's retrieval
// text as typed and with the places the router's gazetteer finds (`findPlaces`) and/or the period it reads
// (`parsePeriod`) cut out of it; nDCG@10 per style and the paired difference against the queries as typed. Every mode
// is appended to bench/tuning-log.json and the best marked `chosen`. The test half is never read.
//   node bench/static-query-context.cjs [--modes none,periods,places,places+periods] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, TUNING_FLAGS, styleDevHalf, devVectorEvaluation, scoresLine, tuningRun, appendTuningRun, pairedDevDifference, markChosenBeyondTie } = require('./lib/tuning.cjs');

const MODES = ['none', 'periods', 'places', 'places+periods', 'sentences-mean', 'sentences-max'];
const SENTENCE_MODES = new Set(['sentences-mean', 'sentences-max']);
const args = benchArgs({
  script: __filename,
  measures: 'the static encoder alone on the style benchmark DEV half, queries as typed or without the places and periods the router finds: appended to bench/tuning-log.json',
  flags: {
    modes: { type: 'list', default: MODES, placeholder: 'M,M', help: `what is cut out of each query (${MODES.join('|')}; none: as typed)` },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
for (const m of args.modes) if (!MODES.includes(m)) throw new Error(`--modes: ${JSON.stringify(m)} is not one of ${MODES.join(', ')}`);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/train'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/router'), ...require('../dist/lib/util/english') };

/** Fixed "today" for open periods ("since 2015"): the cut does not depend on the day the bench runs. */
const NOW = new Date('2026-12-01T00:00:00Z');

/** The query without the spans `mode` names (the query itself when nothing would be left). */
function cut(text, mode) {
  const spans = [];
  if (mode.includes('places')) for (const p of eo.findPlaces(text)) spans.push(p.span);
  if (mode.includes('periods')) {
    const period = eo.parsePeriod(text, NOW);
    if (period?.span) spans.push(period.span);
  }
  let out = text;
  for (const s of spans.sort((a, b) => b.start - a.start)) out = `${out.slice(0, s.start)} ${out.slice(s.end)}`;
  out = out.replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : text;
}

/**
 * Each query's sentences scored apart (each with the scorer's feedback) and their scores combined per dataset by the
 * mean or the max (`sentences-mean`, `sentences-max`): a research question's context sentence and its need sentence
 * ("… in Gabon since 2019? I need footprint-level canopy height") each find their own datasets. One-sentence queries
 * are scored as typed.
 */
async function sentenceScores(scorer, typed, mode) {
  const split = typed.map((t) => eo.abstractSentences(t).map((x) => x.text));
  const changed = split.filter((ss) => ss.length > 1).length;
  const flat = split.flatMap((ss) => (ss.length > 1 ? ss : []));
  const flatScores = await scorer.scoreBatch(flat);
  const whole = await scorer.scoreBatch(typed);
  let at = 0;
  const vectors = split.map((ss, i) => {
    if (ss.length <= 1) return whole[i];
    const parts = flatScores.slice(at, at + ss.length);
    at += ss.length;
    const out = new Float32Array(parts[0].length);
    for (let r = 0; r < out.length; r++) {
      let v = mode === 'sentences-max' ? -Infinity : 0;
      for (const p of parts) v = mode === 'sentences-max' ? Math.max(v, p[r]) : v + p[r] / parts.length;
      out[r] = v;
    }
    return out;
  });
  return { vectors, changed };
}

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample: args.sample }));
  const half = styleDevHalf(eo, corpus);
  const { model } = await eo.loadOrTrainStaticModel({ corpus, bench, log: (l) => console.log(`  ${l}`) });
  const scorer = await eo.staticCosineScorer(model, corpus);
  console.log(`style benchmark DEV half: ${half.queries.length} queries; ${corpus.datasets.length} datasets; ${scorer.label} (${model.id})`);
  const typed = half.queries.map((q) => eo.retrievalTextOf(q.text));
  const entry = tuningRun('static-query-context', half, 'bench/static-query-context.cjs');
  const entries = [];
  let asTyped = null;
  for (const mode of args.modes) {
    let vectors;
    let changed;
    if (SENTENCE_MODES.has(mode)) ({ vectors, changed } = await sentenceScores(scorer, typed, mode));
    else {
      const texts = mode === 'none' ? typed : typed.map((t) => cut(t, mode));
      vectors = await scorer.scoreBatch(texts);
      changed = texts.filter((t, i) => t !== typed[i]).length;
    }
    const { scores, perQuery } = devVectorEvaluation(eo, half, corpus, vectors);
    if (mode === 'none') asTyped = perQuery;
    const note = asTyped && mode !== 'none' ? pairedDevDifference(perQuery, asTyped).text : null;
    console.log(`${mode}:`.padEnd(16), scoresLine(scores, half), ` ${changed} queries changed`, note ?? '');
    entries.push({ ...entry({ cut: mode, model: model.id, changedQueries: changed }, scores), ...(note ? { note } : {}) });
  }
  // a cut is taken only when it beats the queries as typed by more than the static settings' tie
  const typedAt = entries.findIndex((e) => e.settings.cut === 'none');
  const best = typedAt < 0 ? eo.markBestChosen(entries, TUNING_METRIC) : markChosenBeyondTie(entries, typedAt, eo.STATIC_SETTINGS_TIE.nDCG, 'the queries stay as typed', (e) => e.settings.cut);
  console.log(`chosen: ${entries[best].settings.cut}`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
