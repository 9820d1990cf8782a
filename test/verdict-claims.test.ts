// The claim checks of notebooks 02–04 (lib/lessons/verdict-claims.ts and the checks their lesson modules register):
// the verdict forms they show, generated here from hand-made tables, pass; the same text against a changed table
// (or a changed text) fails. The notebook test runs the same checks on the notebooks' own results.json.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MetricRow } from '../lib/metrics';
import { pairedComparisons } from '../lib/metrics';
import { metricsVerdict, pairedVerdict, paperComparisonSentence, sampleNote } from '../lib/report';
import { NASA_EO_BENCH, PAPER_TABLE2 } from '../lib/bench';
import {
  checkNotebookClaims, labelHolesVerdict, nnsscCheckpointSentence, trainingScaleClause,
} from '../lib/lessons';
import {
  metricsVerdictProblems, pairedVerdictProblems, paperSentenceProblems, trainingScaleProblems, trainingVerdictProblems,
} from '../lib/lessons/verdict-claims';
import { trainingVerdict } from '../lib/report';

const row = (system: string, v: number[]): MetricRow => ({ system, 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] });
const rows = [row('BM25', [0.6, 0.7, 0.9, 0.5, 0.55]), row('Cosine (base)', [0.2, 0.3, 0.8, 0.1, 0.12])];

test('metricsVerdict and the paper sentence agree with their table, and not with a changed one', () => {
  const text = metricsVerdict(rows) + '\n\n' + paperComparisonSentence({ what: 'BM25 MAP', ours: 0.5, paper: PAPER_TABLE2.find((r) => r.label === 'BM25')!.values.MAP, sample: true });
  assert.equal(metricsVerdictProblems(text, rows), []);
  assert.equal(paperSentenceProblems(text, rows), []);
  const swapped = [row('BM25', [0.6, 0.7, 0.9, 0.05, 0.55]), rows[1]];
  assert.ok(metricsVerdictProblems(text, swapped).some((p) => /winner of MAP/.test(p)), 'a MAP winner that lost is caught');
  assert.ok(paperSentenceProblems(text, swapped).some((p) => /quotes ours 0\.500/.test(p)), "ours no longer the table's MAP");
  assert.ok(paperSentenceProblems(text.replace("the paper's 0.064", "the paper's 0.164"), rows).some((p) => /lib\/bench\/paper\.ts has 0\.064/.test(p)));
});

test('pairedVerdict agrees with its paired table (found under a key without parentheses); a changed sign is caught', () => {
  const a = { queryIds: ['q1', 'q2', 'q3', 'q4'], values: { 'R@10': [1, 1, 1, 0], 'R@20': [1, 1, 1, 1], 'R@100': [1, 1, 1, 1], MAP: [0.9, 0.8, 0.7, 0.1], MRR: [1, 1, 0.5, 0.2] } };
  const b = { queryIds: ['q1', 'q2', 'q3', 'q4'], values: { 'R@10': [0, 0, 1, 0], 'R@20': [1, 1, 1, 1], 'R@100': [1, 1, 1, 1], MAP: [0.1, 0.2, 0.7, 0.1], MRR: [0.1, 0.2, 0.5, 0.2] } };
  const paired = pairedComparisons(a as never, b as never, 'BM25 (per-field)', 'BM25');
  const results = { shownText: [pairedVerdict(paired, 'BM25 (per-field)', 'BM25')] };
  assert.equal(pairedVerdictProblems(results, { 'BM25 per-field vs BM25': paired }), []);
  const flipped = paired.map((c) => ({ ...c, meanDiff: -c.meanDiff }));
  assert.ok(pairedVerdictProblems(results, { 'BM25 per-field vs BM25': flipped }).length > 0);
  assert.ok(pairedVerdictProblems(results, {}).some((p) => /no paired table/.test(p)));
});

test('the training split beside NASA-EO-Bench\'s test split (the size the paper notes give): the count, 4,234 and the ratio follow results.json', () => {
  const clause = trainingScaleClause(49);
  assert.match(clause, new RegExp(`49 queries, ${(NASA_EO_BENCH.test / 49).toFixed(1)}× fewer than NASA-EO-Bench's test split alone \\(4,234 queries\\)`));
  const results = { trainQueries: 49, shownText: [`Training data: ${clause}.`] };
  assert.equal(trainingScaleProblems(results), []);
  assert.ok(trainingScaleProblems({ ...results, trainQueries: 50 }).length > 0);
  assert.ok(trainingScaleProblems({ ...results, shownText: [] }).length > 0, 'a missing sentence is a problem');
  assert.match(trainingScaleClause(20000), /4\.7× more than/);
});

test('trainingVerdict agrees with its training record; a reused flag or a loss that differs is caught', () => {
  const losses = [3, 2.5, 2.2];
  const validation = [{ at: 1, value: 0.1 }, { at: 2, value: 0.3 }, { at: 3, value: 0.2 }];
  const text = trainingVerdict({ what: 'NN-SSC (Eq. 5 loss)', losses, unit: 'epoch', validation, metric: 'MAP', reused: false, kept: 2 });
  const t = { unit: 'epoch' as const, losses, lastLoss: 2.2, count: 3, validation, kept: 2, reused: false };
  assert.equal(trainingVerdictProblems(text, t), []);
  assert.ok(trainingVerdictProblems(text, { ...t, reused: true }).length > 0);
  assert.ok(trainingVerdictProblems(text, { ...t, lastLoss: 2.1 }).length > 0);
  assert.ok(trainingVerdictProblems(text, { ...t, kept: 3 }).length > 0);
});

test("notebook 04's check: the checkpoint sentence must agree with reusedCheckpoint", () => {
  const results = { sample: true, queries: 1, trainQueries: 49, metrics: rows, paired: {}, training: { curve: [], reusedCheckpoint: true }, tryIt: { changed: false, setting: 's' } };
  const loaded = checkNotebookClaims('04-nnssc', { ...results, shownText: [nnsscCheckpointSentence({ trained: null })] });
  const trained = checkNotebookClaims('04-nnssc', { ...results, shownText: [nnsscCheckpointSentence({ trained: {} as never })] });
  assert.not.ok(loaded.some((p) => /says the checkpoint was/.test(p)), loaded.join('\n'));
  assert.ok(trained.some((p) => /says the checkpoint was trained in this run/.test(p)));
});

test('labelHolesVerdict says whether the holes-aware order differs, naming both orders when it does', () => {
  const h = (strict: string[], holesAware: string[]) => ({ k: 10, rows: strict.map((system) => ({ system, unlabelled: 0.5 })) as never, ordering: { strict, holesAware }, sameOrdering: strict.join() === holesAware.join() });
  assert.match(labelHolesVerdict(h(['A', 'B'], ['A', 'B'])), /does \*\*not change the order\*\*.*\*\*A\*\* > \*\*B\*\*/);
  assert.match(labelHolesVerdict(h(['A', 'B'], ['B', 'A'])), /\*\*changes the order\*\*.*strict \*\*A\*\* > \*\*B\*\*; holes-aware \*\*B\*\* > \*\*A\*\*/);
  assert.match(sampleNote(true, { queries: 3, datasets: 200 }), /200 datasets, 3 test queries/);
});

test.run();
