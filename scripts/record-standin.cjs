#!/usr/bin/env node
// Record the LLM calls of notebooks 06 and 07 (listwise rerank, agentic rerank, P@K judge) on the SAMPLE snapshot
// against the local stand-in server (test/servers/stand-in.ts: OpenAI-compatible, answers by word overlap, no key),
// so that replaying the store fills the notebooks' LLM rows and judge columns with no key:
//
//   node scripts/record-standin.cjs [--store recordings/stand-in/sample.jsonl] [--only 06,07] [--reports DIR]
//   EO_LLM_MODE=replay EO_LLM_STORE=$PWD/recordings/stand-in/sample.jsonl npm start -- --sample --only 06-llm-rerank,07-agentic
//
// It starts the stand-in on a free 127.0.0.1 port and runs the notebooks (scripts/run-notebooks.cjs, sample) with
// EO_LLM_MODE=record, EO_LLM_STORE=<absolute store path>, EO_RERANK_MODELS=stand-in, EO_JUDGE_MODEL=stand-in and EO_STANDIN_BASE_URL pointing at it, so
// the store holds exactly the requests the notebooks make. Every record names the model `eo-stand-in-plumbing`
// (lib/llm/standin.ts), which is how the notebooks know to label those rows "stand-in server: plumbing, not a
// model's judgement". The stand-in needs no key: no key is read, logged or recorded. Re-running adds only missing
// calls (record mode serves what the store already has). Exit 1 when a notebook fails.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = { store: path.join(ROOT, 'recordings', 'stand-in', 'sample.jsonl'), only: ['06', '07'], reports: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--store') o.store = path.resolve(argv[++i]);
    else if (a === '--only') o.only = argv[++i].split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--reports') o.reports = path.resolve(argv[++i]);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node scripts/record-standin.cjs [--store FILE] [--only 06,07] [--reports DIR]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  require('tsx/cjs'); // the stand-in lives with the other local test servers (TypeScript)
  const { startStandInServer } = require('../test/servers/stand-in.ts');
  const { runNotebook, listNotebooks, failureLine } = require('./run-notebooks.cjs');
  const { ensureSystem } = require('./ensure-system.cjs');
  ensureSystem({ install: false, quiet: true });
  const notebooks = listNotebooks().filter((n) => o.only.some((w) => n.name === w || n.name.startsWith(`${w}-`)));
  if (notebooks.length === 0) throw new Error(`--only ${o.only.join(',')}: no such notebook`);
  fs.mkdirSync(path.dirname(o.store), { recursive: true });
  const reports = o.reports ?? fs.mkdtempSync(path.join(os.tmpdir(), 'eo-standin-'));
  const srv = await startStandInServer();
  console.log(`[record-standin] stand-in server at ${srv.url}; store ${path.relative(ROOT, o.store)}; reports ${reports}`);
  let failed = false;
  try {
    for (const nb of notebooks) {
      const t0 = Date.now();
      const r = await runNotebook({
        file: nb.file, name: nb.name, reportsDir: path.join(reports, nb.name), sample: true, timeout: 900, quiet: true,
        env: { EO_LLM_MODE: 'record', EO_LLM_STORE: o.store, EO_RERANK_MODELS: 'stand-in', EO_JUDGE_MODEL: 'stand-in', EO_STANDIN_BASE_URL: srv.url },
      });
      console.log(`[record-standin] ${nb.name}: ${r.ok ? 'ok' : failureLine(r)} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      if (!r.ok) failed = true;
    }
  } finally {
    await srv.close();
  }
  const lines = fs.existsSync(o.store) ? fs.readFileSync(o.store, 'utf8').split('\n').filter((l) => l.trim() !== '') : [];
  const byStage = {};
  for (const l of lines) {
    const s = JSON.parse(l).stage ?? '(none)';
    byStage[s] = (byStage[s] ?? 0) + 1;
  }
  console.log(`[record-standin] ${lines.length} records (${Object.entries(byStage).map(([k, v]) => `${k} ${v}`).join(', ')}) from ${srv.requests.length} stand-in requests this run`);
  // absolute: the notebooks' kernels run in notebooks/, where a relative store path would point elsewhere
  console.log(`[record-standin] replay: EO_LLM_MODE=replay EO_LLM_STORE=${o.store} npm start -- --sample --only ${notebooks.map((n) => n.name).join(',')}`);
  if (failed) process.exit(1);
}

main().catch((e) => {
  console.error(`[record-standin] ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
