#!/usr/bin/env node
// Title cues (issue 38; lib/data/gcmd-infer.ts `learnTitleCues`) chosen by two-fold cross-validation WITHIN the dev half
// of the records that carry CMR values (`gcmdInferenceHalf`): each fold learns the lexicon's habits (instrument hosts,
// product families, title cues, providers' unlisted names) from the other fold and is measured on its own records, so
// no learned rule is scored on the records it came from. Compared: no cues; cues for every record whose title has the
// word (scope `corpus`); cues only for the records of the provider they were learned from (scope `provider`), at
// several (minRecords, minShare), with and without the corpus's plain words as cues (`plainWords`). Prints precision / recall / F1 per field over both held-out folds; the test half is
// never read. `--study neighbours`: the records' short-name neighbours (`shortNameNeighbourNames`) instead — none,
// filling an empty field or adding to every field, by shortest prefix, records and share — with the default cues,
// read from title, short name and the abstract fallback (the default row also leaves out the names a record's texts
// deny, "TRMM Ground Validation …"; the other rows do not). `--study rules`: the switchable rules (`GcmdInferenceRules`)
// and the share of a family's records whose texts must agree with it (`familiesTheirTextsAgreeWith`).
// `--study habits`: the providers' habits (`learnProviderUnlisted`) at several (minRecords, maxShare). `--study veto`:
// the neighbours' veto (`GcmdInferenceRules.neighbourVeto`) per field and shortest prefix.
// `--reading title`: every study reads the title and short name only (the corpus's reading) instead.
// `--folds K`: K-fold instead of two-fold (each fold learns from the other K − 1).
//   node bench/gcmd-cues-cv.cjs [--sample] [--study cues|neighbours|rules|habits|veto] [--reading fallback|title] [--folds 2]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'held-out precision / recall of the GCMD inference with title cues of each scope and threshold, two-fold cross-validation inside the dev half',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    folds: { type: 'int', default: 2, min: 2, help: 'folds of the cross-validation within the dev half: each is measured with what the others teach (more folds learn from more records, nearer the test half\'s reading, which learns from the whole dev half)' },
    reading: { type: 'string', default: 'fallback', choices: ['fallback', 'title'], help: 'the texts read: title, short name and the abstract fallback (the rules were chosen on it), or title and short name only (the corpus\'s reading, which the test half reports)' },
    study: { type: 'string', default: 'cues', choices: ['cues', 'neighbours', 'rules', 'habits', 'veto'], help: 'cues (title-cue scopes and thresholds), neighbours (short-name neighbours), rules (GcmdInferenceRules), habits (the providers\' unlisted names) or veto (the neighbours\' veto)' },
  },
});
printHeader(args);
const infer = require('../dist/lib/data/gcmd-infer');
const { loadSnapshot } = require('../dist/lib/data/snapshot');
const { shortHash } = require('../dist/lib/util/hash');

// [scope, minRecords, minShare, plain words left out]
const CONFIGS = [
  { label: 'no title cues', cues: null },
  { label: 'corpus (3, .9) (the default before)', cues: ['corpus', 3, 0.9, false] },
  { label: 'corpus (5, .95)', cues: ['corpus', 5, 0.95, false] },
  { label: 'provider (3, .9)', cues: ['provider', 3, 0.9, false] },
  { label: 'provider (2, .9)', cues: ['provider', 2, 0.9, false] },
  { label: 'provider (3, .8)', cues: ['provider', 3, 0.8, false] },
  { label: 'provider (5, .9)', cues: ['provider', 5, 0.9, false] },
  { label: 'provider (3, 1)', cues: ['provider', 3, 1, false] },
  { label: 'corpus (3, .9), no plain words', cues: ['corpus', 3, 0.9, true] },
  { label: 'corpus (3, 1), no plain words', cues: ['corpus', 3, 1, true] },
  { label: 'provider (3, 1), no plain words', cues: ['provider', 3, 1, true] },
  { label: 'provider (2, 1), no plain words', cues: ['provider', 2, 1, true] },
  { label: 'provider (3, .9), no plain words', cues: ['provider', 3, 0.9, true] },
];

const corpus = loadSnapshot({ sample: args.sample });
const dev = corpus.datasets.filter((d) => infer.gcmdInferenceHalf(d.id) === 'dev');
const foldOf = (d) => parseInt(shortHash(`gcmd-cues-cv|${d.id}`, 8), 16) % args.folds;
const folds = Array.from({ length: args.folds }, (_, k) => dev.filter((d) => foldOf(d) === k));
const words = infer.plainWords(corpus.datasets.map((d) => d.abstract));
console.log(`dev half: ${dev.length} records (folds ${folds.map((f) => f.length).join(' / ')})`);
const pad = (s, n) => String(s).padEnd(n);
const line = (label, sum) => console.log(`${pad(label, 38)}${sum.map((s) => {
  const p = s.inferred ? s.hit / s.inferred : 0;
  const r = s.recorded ? s.hit / s.recorded : 0;
  return pad(`${p.toFixed(3)} / ${r.toFixed(3)} / ${(p + r ? (2 * p * r) / (p + r) : 0).toFixed(3)}`, 26);
}).join('')}`);
/** A table's first line: what its rows vary, then P / R / F1 per field. */
const heading = (label) => console.log(`${pad(label, 38)}${infer.GCMD_INFERRED_FIELDS.map((f) => pad(`${f} P / R / F1`, 26)).join('')}`);
const SOURCES_READ = args.reading === 'title' ? ['title', 'short-name'] : ['title', 'short-name', 'abstract-fallback'];
/**
 * Each fold's lexicon learned from the other folds — with the default cues and habits unless `titleCues`
 * (learnTitleCues' options, null: none) or `habits` (learnProviderUnlisted's minRecords and maxShare) say otherwise —
 * then `measure(fold, lex)` summed.
 */
function crossValidated(measure, { titleCues = { plainWords: words }, habits = [], familyAgreement } = {}) {
  const sum = infer.GCMD_INFERRED_FIELDS.map(() => ({ hit: 0, inferred: 0, recorded: 0 }));
  for (let k = 0; k < folds.length; k++) {
    const learnFrom = folds.filter((_, j) => j !== k).flat();
    const lex = infer.learnedGcmdLexicon(learnFrom, { plainWords: words, titleCues, familyAgreement });
    lex.unlisted = infer.learnProviderUnlisted(learnFrom, lex, ...habits);
    measure(folds[k], lex).forEach((q, i) => {
      sum[i].hit += q.hits;
      sum[i].inferred += q.inferred;
      sum[i].recorded += q.recorded;
    });
  }
  return sum;
}
if (args.study === 'neighbours') {
  // the names of every field read without the neighbours, then the neighbours' names filled in or added
  const measure = (rule) => (fold, lex) => {
    const without = { ...lex, neighbours: new Map() };
    const tally = infer.GCMD_INFERRED_FIELDS.map(() => ({ hits: 0, inferred: 0, recorded: 0 }));
    for (const d of fold) {
      const truths = infer.GCMD_INFERRED_FIELDS.map((f) => infer.recordedGcmdNames(d, f));
      if (truths.every((t) => !t.length)) continue;
      const got = infer.inferGcmdEntities(d, without, SOURCES_READ);
      infer.GCMD_INFERRED_FIELDS.forEach((f, i) => {
        if (!truths[i].length) return;
        let names = got[f];
        if (rule && (rule.add || !names.length)) names = [...new Set([...names, ...infer.shortNameNeighbourNames(d, lex, f, rule)])];
        tally[i].recorded += truths[i].length;
        tally[i].inferred += names.length;
        tally[i].hits += names.filter((x) => truths[i].includes(x)).length;
      });
    }
    return tally;
  };
  heading('short-name neighbours');
  line('none', crossValidated(measure(null)));
  line('the default (inferGcmdEntities)', crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, lex, SOURCES_READ)));
  for (const add of [false, true]) for (const minPrefix of [4, 5, 6, 7, 8]) for (const minRecords of [1, 2, 3]) for (const minShare of [0.9, 1]) {
    line(`${add ? 'add' : 'fill'} prefix ≥ ${minPrefix}, ${minRecords} rec, ${minShare}`, crossValidated(measure({ add, minPrefix, minRecords, minShare })));
  }
  process.exit(0);
}
if (args.study === 'habits') {
  heading('providers\' habits (records, share)');
  line('the default', crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, lex, SOURCES_READ)));
  for (const [minRecords, maxShare] of [[3, 0.5], [2, 0.5], [1, 0.5], [3, 0.67], [2, 0.67], [1, 0.67], [2, 0.8], [1, 0.8], [1, 0.34]]) {
    line(`${minRecords} records, share < ${maxShare}`, crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, lex, SOURCES_READ), { habits: [minRecords, maxShare] }));
  }
  process.exit(0);
}
if (args.study === 'veto') {
  heading('neighbours\' veto (fields, prefix)');
  const VETOES = [
    { label: 'none', fields: [], prefix: 3 },
    { label: 'projects, ≥ 3 (default)', fields: ['projects'], prefix: 3 },
    ...[4, 5, 7].map((prefix) => ({ label: `projects, ≥ ${prefix}`, fields: ['projects'], prefix })),
    { label: 'every field, ≥ 3', fields: ['platforms', 'instruments', 'projects'], prefix: 3 },
    { label: 'every field, ≥ 7', fields: ['platforms', 'instruments', 'projects'], prefix: 7 },
  ];
  for (const v of VETOES) {
    line(v.label, crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, { ...lex, rules: { ...lex.rules, neighbourVeto: v.fields, vetoMinPrefix: v.prefix } }, SOURCES_READ)));
  }
  process.exit(0);
}
if (args.study === 'rules') {
  const RULES = [
    { label: 'a family adds', rules: { familyFillsOnly: [] } },
    { label: 'a family fills platforms (default)', rules: { familyFillsOnly: ['platforms'] } },
    { label: 'a family fills instruments too', rules: { familyFillsOnly: ['platforms', 'instruments'] } },
    { label: 'a family fills every field', rules: { familyFillsOnly: ['platforms', 'instruments', 'projects'] } },
    { label: 'an abstract\'s ACE in ACE-FTS counts', rules: { platformInsideInstrumentInProse: false } },
    { label: 'a cue adds without its company', rules: { cuesNeedTheirCompany: false } },
    { label: 'no DMSP flight numbers', rules: { dmspFlightNumbers: false } },
    { label: 'a product line\'s heading mission counts', rules: { productLineHeads: false } },
    { label: 'hosts whatever else the record names', rules: { hostsYieldToCarriers: false } },
    { label: 'families without their company', rules: { familiesNeedTheirCompany: [] } },
    { label: 'families\' company: platforms, instr.', rules: { familiesNeedTheirCompany: ['platforms', 'instruments'] } },
    { label: 'families\' company: instruments', rules: { familiesNeedTheirCompany: ['instruments'] } },
    { label: 'a platform after a foreign instr. counts', rules: { platformAfterForeignInstrument: false } },
  ].map((r) => ({ ...r, rules: { ...infer.DEFAULT_GCMD_INFERENCE_RULES, ...r.rules } }));
  heading('rules');
  for (const r of RULES) line(r.label, crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, { ...lex, rules: r.rules }, SOURCES_READ)));
  // familiesTheirTextsAgreeWith: a share of 0 keeps every family's names
  for (const share of [0, 0.34, 0.67]) line(`families' texts agree ≥ ${share}${share ? '' : ' (off)'}`, crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, lex, SOURCES_READ), { familyAgreement: share }));
  process.exit(0);
}
heading('title cues');
for (const c of CONFIGS) {
  const [scope, minRecords, minShare, noPlain] = c.cues ?? [];
  const titleCues = c.cues ? { scope, minRecords, minShare, ...(noPlain ? { plainWords: words } : {}) } : null;
  line(c.label, crossValidated((fold, lex) => infer.gcmdInferenceQuality(fold, lex, infer.GCMD_CORPUS_SOURCES), { titleCues }));
}
