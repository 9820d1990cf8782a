// Shared by the tuning scripts (bench/*-tune.cjs): the style benchmark's DEV half as they score it, a run's scores in
// the tuning log's shape, a one-line summary of them, and the append to bench/tuning-log.json (or why nothing was
// appended). The library is required lazily, so a script's --help and flag errors answer before it loads.
'use strict';

/** The metric every tuning script chooses by. */
const TUNING_METRIC = 'nDCG@10';

/** The dev half: its queries (id, text, style), graded qrels, and the query ids of each style. */
function styleDevHalf(eo, corpus) {
  const styles = eo.buildStyleBenchmark(corpus);
  const queries = styles.queries.filter((q) => q.split === 'dev').map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const { qrels } = eo.styleBenchmarkSplit(styles, 'dev');
  const byStyle = [...new Set(queries.map((q) => q.style))].map((s) => [s, new Set(queries.filter((q) => q.style === s).map((q) => q.id))]);
  return { benchmark: styles.name, queries, qrels, byStyle };
}

/** A run's per-query metrics and its scores as the log keeps them (`perQuery` for paired tests and subsets). */
function devEvaluation(run, half) {
  const { evaluateGraded, gradedMeans } = require('../../dist/lib/metrics/graded');
  const perQuery = evaluateGraded(run, half.qrels);
  const all = gradedMeans(perQuery);
  const scores = { [TUNING_METRIC]: all[TUNING_METRIC], MAP: all.MAP, ...Object.fromEntries(half.byStyle.map(([s, keep]) => [`${s}/${TUNING_METRIC}`, gradedMeans(perQuery, keep)[TUNING_METRIC]])) };
  return { scores, perQuery };
}

/** A run's scores as the log keeps them: nDCG@10 and MAP over all dev queries, then nDCG@10 per style (`style/nDCG@10`). */
function devScores(run, half) {
  return devEvaluation(run, half).scores;
}

/** `devEvaluation` of score vectors aligned with `half.queries` (their run at depth 100). */
function devVectorEvaluation(eo, half, corpus, vectors) {
  return devEvaluation(eo.runFromScores(half.queries.map((q) => q.id), vectors, corpus, 100), half);
}

/** The dev-half scores of score vectors aligned with `half.queries` (`devVectorEvaluation`'s scores). */
function devVectorScores(eo, half, corpus, vectors) {
  return devVectorEvaluation(eo, half, corpus, vectors).scores;
}

/** `nDCG@10 0.5768  (question 0.418, keyword 0.572, …)`. */
function scoresLine(scores, half) {
  return `${TUNING_METRIC} ${scores[TUNING_METRIC].toFixed(4)}  (${half.byStyle.map(([s]) => `${s} ${scores[`${s}/${TUNING_METRIC}`].toFixed(3)}`).join(', ')})`;
}

/**
 * The entry maker of one tuning run of `system` on the dev half: `(settings, scores) => entry` in the log's shape, the
 * run id (`<system>-tune-<date>`), date and commit fixed when the run starts.
 */
function tuningRun(system, half, script) {
  const date = new Date().toISOString();
  const run = `${system}-tune-${date}`;
  const commit = require('./header.cjs').benchCommit();
  return (settings, scores) => ({ system, benchmark: half.benchmark, half: 'dev', queries: half.queries.length, settings, scores, script, date, commit, run });
}

/** Append a tuning run's entries to the log, or say why not (a sample snapshot, or --no-log). */
function appendTuningRun(eo, entries, { sample, noLog }) {
  if (sample || noLog) {
    console.log(sample ? 'sample snapshot: nothing appended to the tuning log' : '--no-log: nothing appended to the tuning log');
    return;
  }
  const n = eo.appendTuningLog(entries);
  console.log(`appended ${entries.length} entries to bench/tuning-log.json (${n} in all)`);
}

/**
 * The paired difference of two dev runs' per-query results (`evaluateGraded`), with − without, in the tuning
 * metric: the comparison and its words for a log entry's note (`with − without nDCG@10 -0.0005 [-0.0027, 0.0016]
 * (paired bootstrap 95% CI, 331 dev queries, seed 42)`).
 */
function pairedDevDifference(withPerQuery, withoutPerQuery) {
  const { gradedPaired } = require('../../dist/lib/metrics/graded');
  const d = gradedPaired(withPerQuery, withoutPerQuery, TUNING_METRIC, undefined, { seed: 42, bootstrapSamples: 10000, permutations: 10000 });
  return { d, text: `with − without ${TUNING_METRIC} ${d.meanDiff.toFixed(4)} [${d.ciLow.toFixed(4)}, ${d.ciHigh.toFixed(4)}] (paired bootstrap 95% CI, ${d.n} dev queries, seed 42)` };
}

/**
 * Mark the chosen entry of a run that tries variants of what the library does (`entries[baseline]`): the best by the
 * tuning metric when it beats the baseline by more than `tie` (STATIC_SETTINGS_TIE's nDCG, say), else the baseline, whose
 * note then names the best variant and `kept` (what stays). Ties go to the earlier entry. Returns the chosen index.
 */
function markChosenBeyondTie(entries, baseline, tie, kept, describe = (e) => JSON.stringify(e.settings)) {
  const best = entries.reduce((b, e, i) => (e.scores[TUNING_METRIC] > entries[b].scores[TUNING_METRIC] + 1e-12 ? i : b), 0);
  const chosen = best !== baseline && entries[best].scores[TUNING_METRIC] - entries[baseline].scores[TUNING_METRIC] > tie ? best : baseline;
  entries[chosen].chosen = true;
  if (chosen !== best) entries[chosen].note = `the best variant (${describe(entries[best])}) is within ${tie} ${TUNING_METRIC} of it (STATIC_SETTINGS_TIE): ${kept}`;
  return chosen;
}

/** The flags every tuning script takes (benchArgs form). */
const TUNING_FLAGS = {
  sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one (a smoke run: nothing logged)' },
  'no-log': { type: 'boolean', help: 'print only; append nothing to the tuning log' },
};

module.exports = { TUNING_METRIC, TUNING_FLAGS, styleDevHalf, devScores, devVectorEvaluation, devVectorScores, scoresLine, tuningRun, appendTuningRun, pairedDevDifference, markChosenBeyondTie };
