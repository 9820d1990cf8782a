// `npm start` runs notebooks side by side only where NOTEBOOK_NEEDS allows (scripts/run-notebooks.cjs): 03 and 04 may
// start once 00 and 01 are done (03 beside 02, then 04 beside 03), and every other notebook waits for all earlier ones. These
// tests drive the pure scheduler (nextNotebook) through a whole run, so a change that lets 05 start before 03 or 04
// finished, starts more than --jobs at once, or reorders starts fails here. Teacher mode (--sample) has its own plan
// (SAMPLE_NOTEBOOK_NEEDS, SAMPLE_START_ORDER): each notebook waits only for the notebooks whose files it reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { nextNotebook, notebookNeeds, listNotebooks, schedulePlan, NOTEBOOK_NEEDS, SAMPLE_NOTEBOOK_NEEDS, SAMPLE_START_ORDER } = require('../scripts/run-notebooks.cjs');

type Nb = { name: string; file: string };
const NAMES = ['00-tour', '01-benchmark', '02-baselines', '03-encoder-finetune', '04-nnssc', '05-fusion', '06-llm-rerank', '07-agentic', '08-router'];
const chosen: Nb[] = NAMES.map((name) => ({ name, file: `${name}.ipynb` }));

/**
 * Simulate a run where notebook `name` takes `cost[name]` time units: returns [start, end] per notebook. Finishing
 * order among equal ends follows the list order.
 */
function simulate(list: Nb[], jobs: number, cost: Record<string, number>, needs: Record<string, string[]> = NOTEBOOK_NEEDS): Record<string, [number, number]> {
  const started = new Set<string>();
  const finished = new Set<string>();
  const when: Record<string, [number, number]> = {};
  let now = 0;
  for (let guard = 0; guard < 100 && finished.size < list.length; guard++) {
    for (let i = nextNotebook(list, started, finished, jobs, needs); i >= 0; i = nextNotebook(list, started, finished, jobs, needs)) {
      started.add(list[i].name);
      when[list[i].name] = [now, now + (cost[list[i].name] ?? 1)];
    }
    const running = [...started].filter((n) => !finished.has(n));
    assert.ok(running.length > 0, `deadlock at t=${now}: nothing running, ${finished.size}/${list.length} finished`);
    assert.ok(running.length <= jobs, `${running.length} running with jobs=${jobs}`);
    now = Math.min(...running.map((n) => when[n][1]));
    for (const n of running) if (when[n][1] === now) finished.add(n);
  }
  return when;
}

test('the repository notebooks are the ones NOTEBOOK_NEEDS names (a renamed notebook would silently lose its lane)', () => {
  const names = listNotebooks().map((n: Nb) => n.name);
  for (const [nb, needs] of Object.entries(NOTEBOOK_NEEDS as Record<string, string[]>)) {
    assert.ok(names.includes(nb), `${nb} is not a notebook (have ${names.join(', ')})`);
    for (const n of needs) assert.ok(names.includes(n), `${nb} needs ${n}, which is not a notebook`);
  }
});

test('03 and 04 wait only for 00 and 01; 05 waits for everything before it', () => {
  assert.equal(notebookNeeds(chosen, '03-encoder-finetune'), ['00-tour', '01-benchmark']);
  assert.equal(notebookNeeds(chosen, '04-nnssc'), ['00-tour', '01-benchmark']);
  assert.equal(notebookNeeds(chosen, '05-fusion'), NAMES.slice(0, 5));
  assert.equal(notebookNeeds(chosen, '02-baselines'), ['00-tour', '01-benchmark']);
  assert.equal(notebookNeeds(chosen, '00-tour'), []);
  // --only 03,04: neither waits for the other
  const two = chosen.filter((n) => n.name === '03-encoder-finetune' || n.name === '04-nnssc');
  assert.equal(notebookNeeds(two, '04-nnssc'), []);
});

test('jobs=2: 03 beside 02, 04 when 02 ends (beside 03), 05 after both, the rest one after the other', () => {
  const cost = { '02-baselines': 2, '03-encoder-finetune': 10, '04-nnssc': 6 };
  const w = simulate(chosen, 2, cost);
  assert.is(w['03-encoder-finetune'][0], w['02-baselines'][0], '03 starts with 02');
  assert.ok(w['02-baselines'][0] >= w['01-benchmark'][1]);
  assert.is(w['04-nnssc'][0], w['02-baselines'][1], '04 starts when 02 ends');
  assert.ok(w['04-nnssc'][0] < w['03-encoder-finetune'][1], '04 overlaps 03');
  assert.is(w['05-fusion'][0], Math.max(w['03-encoder-finetune'][1], w['04-nnssc'][1]));
  for (const n of ['01-benchmark', '02-baselines', '06-llm-rerank', '07-agentic', '08-router']) {
    const i = NAMES.indexOf(n);
    assert.ok(w[n][0] >= w[NAMES[i - 1]][1], `${n} starts after ${NAMES[i - 1]} ends`);
  }
  // 02 (2) and 04 (6) run inside 03's 10 units: the whole run is 8 units shorter than one after the other
  const end = (x: Record<string, [number, number]>) => Math.max(...Object.values(x).map((v) => v[1]));
  assert.is(end(simulate(chosen, 1, cost)) - end(w), 8);
});

test('jobs=1: strictly one after the other, in order', () => {
  const w = simulate(chosen, 1, { '03-encoder-finetune': 10, '04-nnssc': 6 });
  for (let i = 1; i < NAMES.length; i++) assert.is(w[NAMES[i]][0], w[NAMES[i - 1]][1], NAMES[i]);
});

test('nothing starts past a notebook that is still waiting (starts keep the list order)', () => {
  const started = new Set(['00-tour', '01-benchmark']);
  const finished = new Set(['00-tour']);
  // 02 waits for 01 although a job is free; 03 and 04 may not jump ahead of it
  assert.is(nextNotebook(chosen, started, finished, 2), -1);
  finished.add('01-benchmark');
  assert.is(nextNotebook(chosen, started, finished, 2), 2);
  started.add('02-baselines');
  assert.is(nextNotebook(chosen, started, finished, 2), 3, '03 beside 02');
  started.add('03-encoder-finetune');
  assert.is(nextNotebook(chosen, started, finished, 2), -1, 'two running: 04 waits for a free job');
  finished.add('02-baselines');
  assert.is(nextNotebook(chosen, started, finished, 2), 4);
});

test('teacher mode (--sample): every notebook waits only for what it reads; 00 and 03 start together, 06/07/08 side by side', () => {
  const names = listNotebooks().map((n: Nb) => n.name);
  assert.equal(Object.keys(SAMPLE_NOTEBOOK_NEEDS as Record<string, string[]>).sort(), [...names].sort(), 'SAMPLE_NOTEBOOK_NEEDS names every notebook');
  for (const [nb, needs] of Object.entries(SAMPLE_NOTEBOOK_NEEDS as Record<string, string[]>)) for (const n of needs) assert.ok(names.includes(n), `${nb} needs ${n}, which is not a notebook`);
  const plan = schedulePlan(chosen, true);
  assert.equal(plan.order.map((n: Nb) => n.name), SAMPLE_START_ORDER);
  const cost = { '00-tour': 4, '01-benchmark': 1, '02-baselines': 2, '03-encoder-finetune': 8, '04-nnssc': 3, '05-fusion': 3, '06-llm-rerank': 2, '07-agentic': 2, '08-router': 2 };
  const w = simulate(plan.order, 2, cost, plan.needs);
  for (const [nb, needs] of Object.entries(SAMPLE_NOTEBOOK_NEEDS as Record<string, string[]>)) for (const n of needs) assert.ok(w[n][1] <= w[nb][0], `${n} ends before ${nb} starts`);
  assert.is(w['03-encoder-finetune'][0], w['00-tour'][0], '03 starts beside 00 (the longest chain first)');
  assert.ok(w['07-agentic'][0] < w['06-llm-rerank'][1], '07 runs beside 06');
  // the same notebooks one at a time in file order take longer by what ran side by side
  const end = (x: Record<string, [number, number]>) => Math.max(...Object.values(x).map((v) => v[1]));
  assert.ok(end(w) < end(simulate(chosen, 1, cost)), `side by side ${end(w)} < one at a time ${end(simulate(chosen, 1, cost))}`);
  // a full run keeps its own plan
  assert.equal(schedulePlan(chosen, false).order.map((n: Nb) => n.name), NAMES);
  assert.is(schedulePlan(chosen, false).needs, NOTEBOOK_NEEDS);
});

test.run();
