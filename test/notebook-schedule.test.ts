// `npm start` runs notebooks side by side only where NOTEBOOK_NEEDS allows (scripts/run-notebooks.cjs): each notebook
// waits only for the notebooks whose files it reads, the longest chain first (START_ORDER), on the full snapshot and
// the sample alike; --jobs 1 runs them in file order. These tests drive the pure scheduler (nextNotebook) through a
// whole run, so a change that lets 05 start before 03 or 04 finished, starts more than --jobs at once, or reorders
// starts fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { nextNotebook, notebookNeeds, listNotebooks, schedulePlan, NOTEBOOK_NEEDS, START_ORDER } = require('../scripts/run-notebooks.cjs');

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

test('every notebook waits only for what it reads (NOTEBOOK_NEEDS); --only drops needs outside the selection', () => {
  const names = listNotebooks().map((n: Nb) => n.name);
  assert.equal(Object.keys(NOTEBOOK_NEEDS as Record<string, string[]>).sort(), [...names].sort(), 'NOTEBOOK_NEEDS names every notebook');
  assert.equal(notebookNeeds(chosen, '05-fusion'), ['03-encoder-finetune', '04-nnssc']);
  assert.equal(notebookNeeds(chosen, '08-router'), ['01-benchmark', '05-fusion']);
  assert.equal(notebookNeeds(chosen, '03-encoder-finetune'), []);
  const two = chosen.filter((n) => n.name === '05-fusion' || n.name === '04-nnssc');
  assert.equal(notebookNeeds(two, '05-fusion'), ['04-nnssc']);
});

test('jobs=2 (full snapshot and sample alike): 03 and 04 start together, 00/01/02 in the tail of 03, 05 after all, 06/07/08 side by side', () => {
  const plan = schedulePlan(chosen, 2);
  assert.equal(plan.order.map((n: Nb) => n.name), START_ORDER);
  assert.is(plan.needs, NOTEBOOK_NEEDS);
  // a cold full run's seconds (04 embeds the corpus for 00, which then finds it)
  const cost = { '00-tour': 20, '01-benchmark': 11, '02-baselines': 29, '03-encoder-finetune': 300, '04-nnssc': 430, '05-fusion': 230, '06-llm-rerank': 27, '07-agentic': 28, '08-router': 22 };
  const w = simulate(plan.order, 2, cost, plan.needs);
  for (const [nb, needs] of Object.entries(NOTEBOOK_NEEDS as Record<string, string[]>)) for (const n of needs) assert.ok(w[n][1] <= w[nb][0], `${n} ends before ${nb} starts`);
  assert.is(w['03-encoder-finetune'][0], 0, '03 starts first (the static encoder in its set-up)');
  assert.is(w['04-nnssc'][0], 0, '04 starts beside 03 (the longest chain)');
  assert.is(w['00-tour'][0], w['03-encoder-finetune'][1], '00 fills in when 03 ends');
  assert.ok(w['02-baselines'][1] <= w['04-nnssc'][1], '00, 01 and 02 end inside 04');
  assert.ok(w['04-nnssc'][0] < w['03-encoder-finetune'][1], '04 overlaps 03');
  assert.is(w['05-fusion'][0], Math.max(w['03-encoder-finetune'][1], w['04-nnssc'][1], w['01-benchmark'][1], w['02-baselines'][1]));
  assert.ok(w['07-agentic'][0] < w['06-llm-rerank'][1], '07 runs beside 06');
  // the same notebooks one at a time take longer by what ran side by side
  const end = (x: Record<string, [number, number]>) => Math.max(...Object.values(x).map((v) => v[1]));
  const serial = schedulePlan(chosen, 1);
  assert.ok(end(w) < end(simulate(serial.order, 1, cost, serial.needs)), `side by side ${end(w)} < one at a time`);
});

test('jobs=1: strictly one after the other, in file order', () => {
  const plan = schedulePlan(chosen, 1);
  assert.equal(plan.order.map((n: Nb) => n.name), NAMES);
  const w = simulate(plan.order, 1, { '03-encoder-finetune': 10, '04-nnssc': 6 }, plan.needs);
  for (let i = 1; i < NAMES.length; i++) assert.is(w[NAMES[i]][0], w[NAMES[i - 1]][1], NAMES[i]);
});

test('nothing starts past a notebook that is still waiting (starts keep the list order)', () => {
  const order = schedulePlan(chosen, 2).order as Nb[];
  const at = (name: string) => order.findIndex((n) => n.name === name);
  const started = new Set(['00-tour', '03-encoder-finetune', '04-nnssc', '01-benchmark', '02-baselines']);
  const finished = new Set(['00-tour', '01-benchmark', '02-baselines', '04-nnssc']);
  // 05 waits for 03 although a job is free; 06, 07, 08 may not jump ahead of it
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), -1);
  finished.add('03-encoder-finetune');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), at('05-fusion'));
  started.add('05-fusion');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), -1, '06 waits for 05');
  finished.add('05-fusion');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), at('06-llm-rerank'));
  started.add('06-llm-rerank');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), at('07-agentic'), '07 beside 06');
  started.add('07-agentic');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS), -1, 'two running: 08 waits for a free job');
});

test.run();
