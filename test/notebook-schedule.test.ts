// `npm start` runs notebooks side by side only where NOTEBOOK_NEEDS allows (scripts/run-notebooks.cjs): each notebook
// waits only for the notebooks whose files it reads, the longest chain first (START_ORDER), on the full snapshot and
// the sample alike; --jobs 1 runs them in file order. These tests drive the pure scheduler (nextNotebook) through a
// whole run, so a change that lets 05 start before 03 or 04 finished, starts more than --jobs at once, or reorders
// starts fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { signalMilestone, REPORTS_DIR_ENV } from '../lib/report/export';
import { isEoError } from '../lib/errors';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { nextNotebook, notebookNeeds, listNotebooks, schedulePlan, milestoneFile, NOTEBOOK_NEEDS, NOTEBOOK_MILESTONES, START_ORDER } = require('../scripts/run-notebooks.cjs');

type Nb = { name: string; file: string };
const NAMES = ['00-tour', '01-benchmark', '02-baselines', '03-encoder-finetune', '04-nnssc', '05-fusion', '06-llm-rerank', '07-agentic', '08-router'];
const chosen: Nb[] = NAMES.map((name) => ({ name, file: `${name}.ipynb` }));

/**
 * Simulate a run where notebook `name` takes `cost[name]` time units: returns [start, end] per notebook. Finishing
 * order among equal ends follows the list order.
 */
function simulate(
  list: Nb[], jobs: number, cost: Record<string, number>, needs: Record<string, string[]> = NOTEBOOK_NEEDS,
  milestoneAt: Record<string, number> = {}, milestones: Record<string, Record<string, string>> = NOTEBOOK_MILESTONES,
): Record<string, [number, number]> {
  const started = new Set<string>();
  const finished = new Set<string>();
  const when: Record<string, [number, number]> = {};
  // `milestoneAt[name]`: time units after its start at which a notebook signals (every one) of its milestones
  const reached = (n: string) => milestoneAt[n] !== undefined && when[n] !== undefined && when[n][0] + milestoneAt[n] <= now;
  let now = 0;
  for (let guard = 0; guard < 100 && finished.size < list.length; guard++) {
    const next = () => nextNotebook(list, started, finished, jobs, needs, milestones, reached);
    for (let i = next(); i >= 0; i = next()) {
      started.add(list[i].name);
      when[list[i].name] = [now, now + (cost[list[i].name] ?? 1)];
    }
    const running = [...started].filter((n) => !finished.has(n));
    assert.ok(running.length > 0, `deadlock at t=${now}: nothing running, ${finished.size}/${list.length} finished`);
    assert.ok(running.length <= jobs, `${running.length} running with jobs=${jobs}`);
    const signals = running.map((n) => (milestoneAt[n] !== undefined ? when[n][0] + milestoneAt[n] : Infinity)).filter((t) => t > now);
    now = Math.min(...running.map((n) => when[n][1]), ...signals);
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

test('06, 07 and 08 start on 05\'s milestone (its α records stored) and run beside the rest of 05; without it they wait for its end', () => {
  const plan = schedulePlan(chosen, 2);
  // the cold run of 2026-12-06 (seconds): 05 stores its α records 80 s in, then spends 150 s on its style tables
  const cost = { '00-tour': 9, '01-benchmark': 10, '02-baselines': 39, '03-encoder-finetune': 445, '04-nnssc': 434, '05-fusion': 238, '06-llm-rerank': 26, '07-agentic': 27, '08-router': 23 };
  const w = simulate(plan.order, 2, cost, plan.needs, { '05-fusion': 80 });
  const fusion = w['05-fusion'];
  for (const nb of ['06-llm-rerank', '07-agentic', '08-router']) {
    assert.ok(w[nb][0] >= fusion[0] + 80, `${nb} starts after 05's milestone`);
    assert.ok(w[nb][1] <= fusion[1], `${nb} ends inside 05 (${w[nb]} vs ${fusion})`);
  }
  assert.is(w['06-llm-rerank'][0], Math.max(fusion[0] + 80, w['02-baselines'][1]), '06 starts at the milestone (or when 02 frees its job)');
  const end = (x: Record<string, [number, number]>) => Math.max(...Object.values(x).map((v) => v[1]));
  const without = simulate(plan.order, 2, cost, plan.needs);
  assert.is(without['06-llm-rerank'][0], without['05-fusion'][1], 'no milestone signalled: 06 waits for 05 to end');
  assert.is(end(w), fusion[1], 'the run ends with 05');
  assert.ok(end(without) - end(w) >= 49, `the milestone saves 06 + 08's wall time (${end(without)} -> ${end(w)})`);
  // a milestone counts only for the pairs NOTEBOOK_MILESTONES names, and only once the needed notebook has started
  const order = plan.order as Nb[];
  const started = new Set(['00-tour', '01-benchmark', '02-baselines', '03-encoder-finetune', '04-nnssc']);
  const finished = new Set(started);
  const always = () => true;
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS, NOTEBOOK_MILESTONES, always), order.findIndex((n) => n.name === '05-fusion'));
  started.add('05-fusion');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS, NOTEBOOK_MILESTONES, () => false), -1, 'not reached: 06 waits');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS, {}, always), -1, 'no milestone named for the pair: 06 waits for the end');
  assert.is(nextNotebook(order, started, finished, 2, NOTEBOOK_NEEDS, NOTEBOOK_MILESTONES, always), order.findIndex((n) => n.name === '06-llm-rerank'));
  const early = new Set(['03-encoder-finetune', '04-nnssc']);
  const needs05on = { ...NOTEBOOK_NEEDS, '05-fusion': ['03-encoder-finetune', '04-nnssc'] };
  assert.is(nextNotebook(order, early, new Set(), 2, needs05on, { '05-fusion': { '03-encoder-finetune': 'x' } }, always), -1, 'two running: a met milestone frees no job');
});

test('every milestone the schedule waits on is signalled by the notebook it names, with the file layout the runner looks for', () => {
  const pairs = Object.entries(NOTEBOOK_MILESTONES as Record<string, Record<string, string>>);
  assert.ok(pairs.length > 0);
  for (const [nb, on] of pairs) {
    for (const [needed, milestone] of Object.entries(on)) {
      assert.ok((NOTEBOOK_NEEDS as Record<string, string[]>)[nb].includes(needed), `${nb}'s milestone on ${needed} is one of its needs`);
      const code = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'notebooks', `${needed}.ipynb`), 'utf8')).cells as { cell_type: string; source: string[] }[])
        .filter((c) => c.cell_type === 'code').map((c) => c.source.join('')).join('\n');
      assert.ok(code.includes(`signalMilestone("${milestone}")`), `${needed}.ipynb signals "${milestone}"`);
    }
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-milestone-'));
  const old = process.env[REPORTS_DIR_ENV];
  try {
    delete process.env[REPORTS_DIR_ENV];
    assert.is(signalMilestone('fusion-records'), null, 'outside the runner nothing is written');
    process.env[REPORTS_DIR_ENV] = path.join(root, '05-fusion');
    const file = signalMilestone('fusion-records');
    assert.is(file, milestoneFile(root, '05-fusion', 'fusion-records'));
    assert.equal(JSON.parse(fs.readFileSync(file!, 'utf8')).milestone, 'fusion-records');
    try {
      signalMilestone('../results');
      assert.unreachable('a path is not a milestone name');
    } catch (e) {
      assert.ok(isEoError(e, 'INVALID_ARGUMENT'), String(e));
    }
  } finally {
    if (old === undefined) delete process.env[REPORTS_DIR_ENV];
    else process.env[REPORTS_DIR_ENV] = old;
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
