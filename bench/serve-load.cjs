#!/usr/bin/env node
// Load benchmark of the search service (`eo serve`) on loopback with autocannon: throughput and p50/p99 latency of
// GET /api/search at several concurrency levels, error count, and the server process's memory (RSS, V8 heap)
// sampled every 250 ms over the whole run. The server runs in a child process (so the load generator does not
// disturb its memory numbers); queries rotate through the labelled router set (lib/router/data/labelled-queries.jsonl).
// Bounded: each level runs --seconds (default 8) after a 3 s warm-up; the run stops by itself and kills its child.
// The levels run --passes times (default 2) so memory at the end of each pass can be compared (steady or growing).
//   node bench/serve-load.cjs [--sample] [--levels 1,4,16,64] [--seconds 8] [--passes 2] [--semantic best|use-lite|none]
// Results are also written to bench/out/serve-load.json.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { fork } = require('node:child_process');
const autocannon = require('autocannon');

const args = process.argv.slice(2);
const opt = (name, def) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : def);
const sample = args.includes('--sample');
const levels = opt('levels', '1,4,16,64').split(',').map(Number);
const seconds = Math.min(60, Number(opt('seconds', '8')));
const semantic = opt('semantic', 'best');
const passes = Math.max(1, Math.min(5, Number(opt('passes', '2'))));

if (process.env.EO_SERVE_LOAD_CHILD) {
  // child: the server
  const eo = require('../dist/lib');
  (async () => {
    const corpus = eo.loadSnapshot({ sample });
    const pipeline = await eo.loadSearchEngine(corpus, { semantic, sample });
    // the limiter stays on (its cost is measured) with a budget the benchmark cannot reach
    const app = await eo.createSearchServer(pipeline, { rateLimitMax: 1e9 });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    process.send({ type: 'ready', url, label: pipeline.label, datasets: corpus.datasets.length });
    setInterval(() => {
      const m = process.memoryUsage();
      process.send({ type: 'mem', t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, external: m.external });
    }, 250).unref();
    process.on('message', async (msg) => {
      if (msg === 'stop') {
        await app.close();
        pipeline.dispose();
        process.exit(0);
      }
    });
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
  return;
}

const queries = fs
  .readFileSync(path.join(__dirname, '..', 'lib', 'router', 'data', 'labelled-queries.jsonl'), 'utf8')
  .split('\n').filter(Boolean).map((l) => JSON.parse(l).query);

function run(url, connections, duration) {
  let i = 0;
  return new Promise((resolve, reject) => {
    const inst = autocannon({
      url, connections, duration, pipelining: 1, timeout: 20,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/search?k=10&q=${encodeURIComponent(queries[i++ % queries.length])}` }) }],
    }, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

const MB = (b) => (b / 1048576).toFixed(1);

(async () => {
  const child = fork(__filename, args, { env: { ...process.env, EO_SERVE_LOAD_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const mem = [];
  const killTimer = setTimeout(() => {
    console.error('serve-load: time limit reached, stopping');
    child.kill('SIGKILL');
    process.exit(1);
  }, (passes * levels.length * (seconds + 5) + 240) * 1000);
  const ready = await new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.type === 'ready') resolve(m);
      else if (m.type === 'mem') mem.push(m);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  console.log(`server: ${ready.label}; ${ready.datasets} datasets; ${ready.url}`);
  await run(ready.url, 4, 3); // warm-up, not reported
  const rows = [];
  for (let pass = 1; pass <= passes; pass++) for (const c of levels) {
    const from = mem.length;
    const r = await run(ready.url, c, seconds);
    const seg = mem.slice(from);
    const errors = r.errors + r.timeouts + r.non2xx;
    rows.push({
      pass, connections: c, requests: r.requests.total, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max,
      errors, rssMB: Number(MB(seg[seg.length - 1]?.rss ?? 0)), heapMB: Number(MB(seg[seg.length - 1]?.heapUsed ?? 0)),
    });
  }
  child.send('stop');
  await new Promise((r) => child.once('exit', r));
  clearTimeout(killTimer);

  console.log('\npass  connections  req/s    p50 ms  p99 ms  max ms  requests  errors  rss MB  heap MB');
  for (const r of rows)
    console.log(`${String(r.pass).padStart(4)}  ${String(r.connections).padStart(11)}  ${r.reqPerSec.toFixed(1).padStart(6)}  ${String(r.p50Ms).padStart(6)}  ${String(r.p99Ms).padStart(6)}  ${String(r.maxMs).padStart(6)}  ${String(r.requests).padStart(8)}  ${String(r.errors).padStart(6)}  ${String(r.rssMB).padStart(6)}  ${String(r.heapMB).padStart(7)}`);
  const rss = mem.map((m) => m.rss);
  const heap = mem.map((m) => m.heapUsed);
  const q = Math.max(1, Math.floor(mem.length / 4));
  const avg = (a) => a.reduce((s, x) => s + x, 0) / a.length;
  const memory = {
    samples: mem.length,
    rssMB: { min: Number(MB(Math.min(...rss))), max: Number(MB(Math.max(...rss))), firstQuarterMean: Number(MB(avg(rss.slice(0, q)))), lastQuarterMean: Number(MB(avg(rss.slice(-q)))) },
    heapMB: { min: Number(MB(Math.min(...heap))), max: Number(MB(Math.max(...heap))), firstQuarterMean: Number(MB(avg(heap.slice(0, q)))), lastQuarterMean: Number(MB(avg(heap.slice(-q)))) },
  };
  console.log(`\nmemory over ${mem.length} samples: RSS ${memory.rssMB.min}–${memory.rssMB.max} MB (first quarter mean ${memory.rssMB.firstQuarterMean}, last ${memory.rssMB.lastQuarterMean}); ` +
    `heap ${memory.heapMB.min}–${memory.heapMB.max} MB (first quarter mean ${memory.heapMB.firstQuarterMean}, last ${memory.heapMB.lastQuarterMean})`);
  const passEnd = Array.from({ length: passes }, (_, i) => rows.filter((r) => r.pass === i + 1).pop());
  console.log(`end of each pass: ${passEnd.map((r, i) => `pass ${i + 1} RSS ${r.rssMB} MB, heap ${r.heapMB} MB`).join('; ')}`);
  const totalErrors = rows.reduce((s, r) => s + r.errors, 0);
  console.log(`errors: ${totalErrors}`);
  const out = path.join(__dirname, 'out', 'serve-load.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ when: new Date().toISOString(), sample, semantic, seconds, server: ready.label, datasets: ready.datasets, passes, levels: rows, memory }, null, 2) + '\n');
  console.log(`written ${path.relative(process.cwd(), out)}`);
  process.exit(totalErrors ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
