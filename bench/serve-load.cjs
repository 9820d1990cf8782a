#!/usr/bin/env node
// Load benchmark of the search service (`eo serve`) on loopback with autocannon, the pre-batching service against the
// current one in ONE run: each mode gets its own server child process (so the load generator does not disturb its
// memory numbers), both up at once, the levels alternating old/new back to back:
//   old: every request embeds its query alone on the event loop and scores the cosine in JS; no answer cache; no
//        admission limit; tfjs matMuls on XNNPACK (EO_TF_MATMUL=wasm) and exact NN-SSC (the pre-batching service;
//        its encoder is the default one, chosenEncoderSpec(): USE-lite on onnx where onnxruntime-node loads, unless
//        $EO_USE_LITE_RUNTIME=tfjs)
//   new: concurrent queries share one encoder call on a worker thread (microBatchingEncoder: ≤ 16 texts, no wait
//        when idle, LRU of query embeddings) and one onnxruntime MatMul for their cosines; answers LRU; bounded
//        admission (503 + Retry-After beyond it)
// Per mode and concurrency level: req/s, p50/p99/max latency, errors (non-2xx, timeouts), server RSS at the end, server CPU ms per request (all its threads), the machine's idle and steal shares (a VM's host taking its vCPUs);
// then the ratios new/old. Every request carries a query text not sent before in that mode (a deterministic list of
// thousands of varied queries built from the corpus: titles, keywords, instruments, with places and periods), so
// the answer cache does not make the numbers trivial; the cached-repeat case (16 connections cycling over 50 queries
// already asked) is reported on its own row.
//   node bench/serve-load.cjs [--sample] [--levels 1,4,16] [--seconds 8] [--modes old,new] [--semantic best|use-lite|none] [--alpha A]
//                             [--two-stage M|exact] [--encoder-spec JSON] [--concurrency N] [--no-repeat] [--overload 512]
//   (--help lists the flags)
// --two-stage: the new mode's NN-SSC scoring (default: the default ranking's, DEFAULT_RANKING.nnsscTwoStage; old is always exact).
// --encoder-spec: the new mode's query encoder (an EncoderSpec of createEncoder; default: the service's, SERVICE_ENCODER_SPEC,
// USE-lite on onnxruntime; '{"kind":"use-lite","options":{"runtime":"tfjs"}}' gives tfjs).
// Each row also prints where the time went: the mean of the server's Server-Timing stages (admission wait, parse,
// route, bm25, queue for the micro-batch, embed incl. the worker hop, cosine / nnssc / firstStage, fuse, constraints,
// explain, json) over the searched answers, and the mean micro-batch size.
// --baseline DIR: mode `today`, the new-mode service of another checkout (built, with its own checkpoints/ and data/), e.g.
// the tree before a change (`git worktree add DIR <commit>` + npm run build): `--modes today,new --baseline DIR`.
// --alpha: a fixed convex α (the cost is that of a stored α; use it where no fusion record exists, which would fuse by RRF).
// Overload (new mode, after the levels; --overload 0 skips it): far more connections than the admission bounds
// hold (default 512 for 10 s): counts of 200 / 503 / other answers, whether every 503 carried Retry-After, the
// slowest answer and autocannon timeouts (a hang would show as a timeout).
// Soak (new mode only): a fixed overall rate for a long time (autocannon overallRate), p99 and RSS per minute, with
// a flat-or-not verdict:
//   node bench/serve-load.cjs --soak 600 --rate 50 [--sample]        (seconds; --soak alone: --soak-minutes [10])
// Results are also written to bench/out/serve-load.json (bench/out/serve-soak.json for --soak).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { fork } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the search service (`eo serve`) under load on loopback: req/s, latency, errors, RSS and CPU per request, the pre-batching service (old) vs the current one (new), plus overload and soak',
  flags: {
    sample: { type: 'boolean', help: 'serve the 200-dataset sample snapshot' },
    levels: { type: 'int-list', default: [1, 4, 16], min: 1, help: 'concurrent connections, one level each' },
    seconds: { type: 'number', default: 8, above: 0, help: 'seconds per level (values over 60 are capped at 60)' },
    modes: { type: 'list', default: ['old', 'new'], choices: ['old', 'today', 'new'], help: 'the servers measured (today: --baseline\'s new mode)' },
    baseline: { type: 'string', default: null, placeholder: 'DIR', defaultText: 'none', help: 'a built checkout whose new-mode service is mode today' },
    semantic: { type: 'string', default: 'best', help: "loadSearchEngine's semantic scorer (best, use-lite, none)" },
    alpha: { type: 'number', default: null, min: 0, max: 1, placeholder: 'A', defaultText: 'the stored fusion record', help: 'a fixed convex α' },
    'two-stage': { type: 'string', default: null, placeholder: 'M|exact', defaultText: 'DEFAULT_RANKING.nnsscTwoStage', check: (v) => /^(exact|[1-9]\d*)$/.test(v) || 'exact or a positive integer M', help: "the new mode's NN-SSC scoring (old is always exact)" },
    'encoder-spec': { type: 'json', default: null, defaultText: 'SERVICE_ENCODER_SPEC', help: "the new mode's query encoder (an EncoderSpec of createEncoder)" },
    concurrency: { type: 'int', default: null, min: 1, defaultText: "the engine's", help: 'micro-batches in flight in the new mode' },
    'no-repeat': { type: 'boolean', help: 'skip the cached-repeat row (16 connections over 50 queries)' },
    overload: { type: 'int', default: 512, min: 0, help: 'connections of the overload step (0: skip it)' },
    soak: { type: 'int', default: null, min: 1, optionalValue: true, placeholder: 'SECONDS', help: 'a soak run of the new mode instead (alone: --soak-minutes)' },
    'soak-minutes': { type: 'number', default: 10, above: 0, help: 'the soak length when --soak has no value' },
    rate: { type: 'number', default: 50, above: 0, help: 'requests per second of the soak' },
  },
});
const sample = args.sample;
const levels = args.levels;
const seconds = Math.min(60, args.seconds);
const semantic = args.semantic;
const modes = args.modes;
const alpha = args.alpha ?? undefined;
const twoStageArg = args.twoStage ?? undefined;
// --concurrency: micro-batches in flight in the new mode (default: the engine's, 2 with the onnx worker threads)
const concurrencyArg = args.concurrency ?? undefined;
const encoderSpec = args.encoderSpec ?? undefined;
const baseline = args.baseline ?? undefined;
// a server child is told its mode by EO_SERVE_LOAD_CHILD (the baseline's child sees --modes today without --baseline)
if (!process.env.EO_SERVE_LOAD_CHILD && modes.includes('today') && !baseline) throw new Error('--modes today needs --baseline DIR (a built checkout to compare with)');
const soak = args.soak !== null;
// --soak SECONDS, or --soak alone with --soak-minutes (default 10)
const soakSeconds = typeof args.soak === 'number' ? args.soak : args.soakMinutes * 60;
const soakMinutes = soakSeconds / 60;
const rate = args.rate;
const overloadConnections = args.overload;
const header = process.env.EO_SERVE_LOAD_CHILD ? null : printHeader(args);
const autocannon = require('autocannon');
const WINDOW_S = Math.min(60, soakSeconds);

if (process.env.EO_SERVE_LOAD_CHILD) {
  // child: the server, in the mode given by the parent
  const eo = { ...require('../dist/lib'), ...require('../dist/lib/serve'), ...require('../dist/lib/tensor'), ...require('../dist/lib/util') };
  const mode = process.env.EO_SERVE_LOAD_CHILD;
  (async () => {
    const corpus = eo.loadSnapshot({ sample });
    // old: per-request embedding on the event loop and the per-query JS cosine (today's path before batching)
    const serviceTwoStage = twoStageArg === undefined ? eo.DEFAULT_RANKING.nnsscTwoStage : twoStageArg === 'exact' ? false : { topM: Number(twoStageArg) };
    const pipeline = await eo.loadSearchEngine(corpus, {
      semantic, sample, alpha, queryBatching: mode === 'new' ? (concurrencyArg ? { concurrency: Number(concurrencyArg) } : {}) : false, cosineKernel: mode === 'new' ? 'auto' : 'js',
      nnsscTwoStage: mode === 'new' ? serviceTwoStage : false, ...(mode === 'new' ? { encoderSpec: encoderSpec ?? eo.SERVICE_ENCODER_SPEC } : {}),
      log: (l) => (l.startsWith('embedding') ? null : console.log(`[${mode} child] ${l}`)),
    });
    // the rate limiter stays on (its cost is measured) with a budget the benchmark cannot reach
    const app = await eo.createSearchServer(pipeline, mode === 'new'
      ? { rateLimitMax: 1e9 }
      : { rateLimitMax: 1e9, resultCacheEntries: 0, maxConcurrentSearches: 1e9, maxQueuedSearches: 0 });
    if (process.env.EO_SERVE_LOAD_DEBUG) {
      const n = { in: 0, out: 0 };
      app.addHook('onRequest', async () => void n.in++);
      app.addHook('onResponse', async () => void n.out++);
      setInterval(() => console.error(`[${mode} child] requests in ${n.in}, answered ${n.out}`), 1000).unref();
    }
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    process.send({ type: 'ready', url, label: pipeline.label, datasets: corpus.datasets.length });
    setInterval(() => {
      const m = process.memoryUsage();
      const u = process.cpuUsage(); // the whole process: event loop, worker threads, onnxruntime's threads
      const elu = performance.eventLoopUtilization(); // the event loop's busy time (ms, cumulative)
      process.send({ type: 'mem', t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, cpuUs: u.user + u.system, loopActiveMs: elu.active });
    }, 250).unref();
    process.on('message', async (msg) => {
      if (msg === 'stop') {
        await app.close();
        pipeline.dispose();
        await eo.stopOnnxWorkers();
        process.exit(0);
      }
    });
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
  return;
}

/** Deterministic varied queries from the corpus (the same list for every mode), shuffled by a fixed seed. */
function buildQueries() {
  const eo = { ...require('../dist/lib'), ...require('../dist/lib/serve'), ...require('../dist/lib/tensor'), ...require('../dist/lib/util') };
  const corpus = eo.loadSnapshot({ sample });
  const places = ['India', 'the Arctic', 'Kenya', 'the Amazon', 'California', 'Europe', 'the Sahel', 'Australia', 'the North Atlantic', 'Antarctica', 'China', 'Brazil'];
  const periods = ['since 2015', 'in 2019', 'from 2003 to 2010', 'in July 2018', 'after 2000', 'during 2012'];
  const stems = ['monthly', 'daily', 'global', 'gridded', 'satellite', 'level 3'];
  const rnd = eo.mulberry32(42);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const out = new Set();
  for (const d of corpus.datasets) {
    const words = d.longName.split(/\s+/);
    out.add(words.slice(0, Math.min(words.length, 3 + Math.floor(rnd() * 6))).join(' '));
    const kws = d.keywords.filter((k) => k !== 'earth science');
    for (const k of kws.slice(0, 3)) {
      out.add(`${pick(stems)} ${k} over ${pick(places)} ${pick(periods)}`);
      out.add(`${k} ${pick(periods)}`);
    }
    for (const ins of d.instruments.slice(0, 1)) if (kws[0]) out.add(`${ins} ${kws[0]}`);
  }
  return require('../dist/lib/util').shuffleInPlace([...out].filter((q) => q.length >= 3 && q.length <= 200), rnd);
}

/** A query source: fresh texts in order (wrapping, counted, when the list runs out), or a fixed cycle. */
function querySource(list, cycle) {
  const s = { i: 0, wrapped: 0, next: () => {
    if (cycle) return cycle[s.i++ % cycle.length];
    if (s.i >= list.length) {
      s.i = 0;
      s.wrapped++;
    }
    return list[s.i++];
  } };
  return s;
}

/** Accumulates the server's `Server-Timing` stages (ms) over the answers of one load: mean per searched answer. */
function stageProfile() {
  const sum = {};
  const p = { searched: 0, hits: 0, batchSum: 0, batches: 0, sum,
    add(headers) {
      const h = headers?.['server-timing'] ?? headers?.['Server-Timing'];
      if (!h) return;
      if (String(h).includes('cache;desc=hit')) { p.hits++; return; }
      p.searched++;
      for (const part of String(h).split(',')) {
        const [name, ...params] = part.trim().split(';');
        for (const x of params) {
          const [k, v] = x.split('=');
          if (k === 'dur') sum[name] = (sum[name] ?? 0) + Number(v);
          else if (k === 'desc' && name === 'batch') { p.batchSum += Number(v); p.batches++; }
        }
      }
    },
    mean() {
      const out = {};
      for (const [k, v] of Object.entries(sum)) out[k] = Number((v / Math.max(1, p.searched)).toFixed(2));
      return { searched: p.searched, cacheHits: p.hits, meanBatch: p.batches ? Number((p.batchSum / p.batches).toFixed(2)) : null, stagesMs: out };
    },
  };
  return p;
}

function load(url, connections, duration, src, extra = {}, profile = null) {
  return new Promise((resolve, reject) => {
    const inst = autocannon({
      url, connections, duration, pipelining: 1, timeout: 20, ...extra,
      requests: [{
        method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/search?k=10&q=${encodeURIComponent(src.next())}` }),
        ...(profile ? { onResponse: (_status, _body, _ctx, headers) => profile.add(headers) } : {}),
      }],
    }, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/**
 * Requests abandoned when a level ends are still being searched by the server: wait (≤ 60 s) until it answers
 * /healthz within 50 ms before the next level, so no level pays for the previous one's backlog.
 */
async function settle(url) {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const t = performance.now();
    await fetch(`${url}/healthz`).then((r) => r.text()).catch(() => null);
    if (performance.now() - t < 50) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const MB = (b) => Number((b / 1048576).toFixed(1));

/** One line: mean ms per stage (Server-Timing) of the searched answers, and the mean micro-batch size. */
function describeProfile(p) {
  const parts = Object.entries(p.stagesMs).map(([k, v]) => `${k} ${v}`);
  return `stages (mean ms over ${p.searched} searched answers${p.cacheHits ? `, ${p.cacheHits} cache hits` : ''}): ${parts.join(', ')}${p.meanBatch !== null ? `; mean batch ${p.meanBatch}` : ''}`;
}

/** Machine-wide CPU counters (Linux /proc/stat): total, idle and steal ticks; null elsewhere. */
function cpuTicks() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), idle: f[3] + (f[4] || 0), steal: f[7] || 0 };
  } catch {
    return null;
  }
}
/** Shares of the machine's CPU time between two `cpuTicks` readings: idle and steal (a VM's vCPU waiting for its host). */
function cpuShares(a, b) {
  if (!a || !b || b.total <= a.total) return null;
  const t = b.total - a.total;
  return { idle: (b.idle - a.idle) / t, steal: (b.steal - a.steal) / t };
}

const children = new Set();
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

async function startServer(mode) {
  // EO_SERVE_LOAD_NODE_ARGS: extra node flags of the server processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  const extra = process.env.EO_SERVE_LOAD_NODE_ARGS ? process.env.EO_SERVE_LOAD_NODE_ARGS.split(/\s+/).filter(Boolean) : [];
  // new: the process as `eo serve` starts it (SERVE_PROCESS: glibc arenas, V8 young generation; the environment wins)
  // old: tfjs-wasm with its matMuls on XNNPACK, as the pre-batching service ran (EO_TF_MATMUL=wasm; the environment wins)
  // today: the baseline checkout's own script, in its new mode, on its own library, caches and defaults
  const today = mode === 'today';
  // SERVE_PROCESS: at the serve entry point; a baseline from before the small root API has it at its root
  const serveLib = (dir) => { const root = require(path.resolve(dir, 'dist', 'lib')); return root.SERVE_PROCESS ? root : require(path.resolve(dir, 'dist', 'lib', 'serve')); };
  const lib = today ? serveLib(baseline) : require('../dist/lib/serve');
  const proc = mode === 'old' ? { env: { EO_TF_MATMUL: 'wasm' }, nodeFlags: [] } : lib.SERVE_PROCESS;
  const env = { ...(process.platform === 'linux' || mode === 'old' ? proc.env : {}), ...process.env, EO_SERVE_LOAD_CHILD: today ? 'new' : mode };
  const execArgv = [...proc.nodeFlags, ...extra];
  const script = today ? path.resolve(baseline, 'bench', 'serve-load.cjs') : __filename;
  // the baseline's own script refuses --modes today without --baseline (a checkout from before the check above): it gets neither
  const dropped = (a, prev, flag) => a === flag || prev === flag || a.startsWith(`${flag}=`);
  const childArgs = args.argv.filter((a, i, all) => !today || (!dropped(a, all[i - 1], '--baseline') && !dropped(a, all[i - 1], '--modes')));
  const child = fork(script, childArgs, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, cwd: today ? path.resolve(baseline) : undefined });
  children.add(child);
  const mem = [];
  const ready = await new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.type === 'ready') resolve(m);
      else if (m.type === 'mem') mem.push(m);
    });
    child.once('exit', (code) => reject(new Error(`server (${mode}) exited with ${code}`)));
  });
  return {
    ...ready, mem, child,
    rssNow: () => MB(mem[mem.length - 1]?.rss ?? 0),
    /** Where the memory is at the last sample: V8 heap (used/total) and external (typed arrays, native), MB. */
    memNow: () => {
      const m = mem[mem.length - 1] ?? {};
      return { heapUsedMB: MB(m.heapUsed ?? 0), heapTotalMB: MB(m.heapTotal ?? 0), externalMB: MB(m.external ?? 0) };
    },
    /** Server CPU time so far, ms (sampled every 250 ms). */
    cpuMsNow: () => (mem[mem.length - 1]?.cpuUs ?? 0) / 1000,
    /** The server's event loop busy time so far, ms. */
    loopMsNow: () => mem[mem.length - 1]?.loopActiveMs ?? 0,
    stop: async () => {
      child.removeAllListeners('exit');
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
      children.delete(child);
    },
  };
}

const row = (mode, connections, r, rssMB, kind = 'fresh') => ({
  mode, kind, connections, requests: r.requests.total, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max,
  errors: r.errors + r.timeouts + r.non2xx, non2xx: r.non2xx, rssMB,
});

async function comparison(queries) {
  // both servers stay up and the levels alternate old/new back to back, so load from elsewhere on the machine
  // (other processes) drifts over both modes alike
  const rows = [];
  const srvs = {};
  const srcs = {};
  for (const mode of modes) {
    srvs[mode] = await startServer(mode);
    srcs[mode] = querySource(queries);
    console.log(`[${mode}] server: ${srvs[mode].label}; ${srvs[mode].datasets} datasets; ${srvs[mode].url}`);
  }
  const label = srvs[modes[0]].label;
  for (const mode of modes) await load(srvs[mode].url, 4, 3, srcs[mode]); // warm-up, not reported
  for (const c of levels) for (const mode of modes) {
    const srv = srvs[mode];
    await settle(srv.url);
    const prof = stageProfile();
    const cpu0 = srv.cpuMsNow();
    const loop0 = srv.loopMsNow();
    const ticks0 = cpuTicks();
    const r = await load(srv.url, c, seconds, srcs[mode], {}, prof);
    const machine = cpuShares(ticks0, cpuTicks());
    await new Promise((res) => setTimeout(res, 300)); // one more sample of the server's CPU time
    const n = Math.max(1, r.requests.total);
    const cpuMsPerRequest = (srv.cpuMsNow() - cpu0) / n;
    const loopMsPerRequest = (srv.loopMsNow() - loop0) / n;
    rows.push({ ...row(mode, c, r, srv.rssNow()), ...srv.memNow(), cpuMsPerRequest, loopMsPerRequest, machine, profile: prof.mean() });
    const x = rows[rows.length - 1];
    const pct = (v) => `${(100 * v).toFixed(0)}%`;
    console.log(`[${mode}] ${c} connections: ${x.reqPerSec.toFixed(1)} req/s, p50 ${x.p50Ms} ms, p99 ${x.p99Ms} ms, errors ${x.errors}, RSS ${x.rssMB} MB (V8 heap ${x.heapUsedMB}/${x.heapTotalMB}, external ${x.externalMB}); server CPU ${cpuMsPerRequest.toFixed(1)} ms per request, of which event loop ${loopMsPerRequest.toFixed(1)}` +
      (machine ? `; machine idle ${pct(machine.idle)}, steal ${pct(machine.steal)}` : ''));
    console.log(`[${mode}]   ${describeProfile(x.profile)}`);
  }
  for (const mode of modes) {
    const srv = srvs[mode];
    if (srcs[mode].wrapped) console.log(`[${mode}] note: the ${queries.length} queries ran out ${srcs[mode].wrapped} time(s): later requests repeat earlier texts`);
    // cached repeat: 50 queries already asked once, cycled by 16 connections (--no-repeat skips it, e.g. to profile)
    if (args.noRepeat) continue;
    const repeat = querySource(null, queries.slice(0, 50));
    await settle(srv.url);
    const r = await load(srv.url, 16, seconds, repeat);
    rows.push(row(mode, 16, r, srv.rssNow(), 'repeat-50'));
    rows[rows.length - 1].peakRssMB = MB(Math.max(...srv.mem.map((m) => m.rss)));
  }
  const overloadRow = modes.includes('new') && overloadConnections > 0 ? await overload(srvs.new, queries) : null;
  for (const mode of modes) await srvs[mode].stop();
  console.log('\nmode  queries    connections   req/s   p50 ms  p99 ms  max ms  requests  errors  rss MB');
  for (const r of rows)
    console.log(`${r.mode.padEnd(5)}  ${r.kind.padEnd(9)}  ${String(r.connections).padStart(11)}  ${r.reqPerSec.toFixed(1).padStart(6)}  ${String(r.p50Ms).padStart(6)}  ${String(r.p99Ms).padStart(6)}  ${String(r.maxMs).padStart(6)}  ${String(r.requests).padStart(8)}  ${String(r.errors).padStart(6)}  ${String(r.rssMB).padStart(6)}`);
  const ratios = [];
  for (const ref of ['old', 'today']) if (modes.includes(ref) && modes.includes('new')) {
    console.log(`\nratios new/${ref} (same run):`);
    for (const kind of ['fresh', 'repeat-50']) for (const c of kind === 'fresh' ? levels : [16]) {
      const o = rows.find((r) => r.mode === ref && r.kind === kind && r.connections === c);
      if (!o) continue;
      const n = rows.find((r) => r.mode === 'new' && r.kind === kind && r.connections === c);
      const x = { against: ref, kind, connections: c, reqPerSec: n.reqPerSec / o.reqPerSec, p99: n.p99Ms / o.p99Ms };
      ratios.push(x);
      console.log(`  ${kind.padEnd(9)} ${String(c).padStart(2)} connections: req/s ×${x.reqPerSec.toFixed(2)}, p99 ×${x.p99.toFixed(2)}`);
    }
  }
  const n16 = rows.find((r) => r.mode === 'new' && r.kind === 'fresh' && r.connections === 16);
  if (n16) {
    const peak = Math.max(...rows.filter((r) => r.mode === 'new').map((r) => r.peakRssMB ?? r.rssMB));
    const answered = n16.requests > 0;
    console.log(`\ngoal (new, fresh queries, 16 connections): ≥ 100 req/s → ${n16.reqPerSec.toFixed(1)} ${n16.reqPerSec >= 100 ? 'met' : 'NOT met'}; ` +
      `p99 ≤ 300 ms → ${answered ? n16.p99Ms : 'no answer'} ${answered && n16.p99Ms <= 300 ? 'met' : 'NOT met'}; peak RSS ≤ 500 MB → ${peak} ${peak <= 500 ? 'met' : 'NOT met'}; errors ${n16.errors}`);
  }
  return { server: label, rows, ratios, overload: overloadRow };
}

/**
 * Overload: `overloadConnections` connections on fresh queries for `seconds` against the new server (admission:
 * 32 running, 256 waiting, 10 s queue timeout by default), each answer's status and Retry-After counted.
 */
async function overload(srv, queries) {
  await settle(srv.url);
  const counts = { ok: 0, overloaded: 0, overloadedWithRetryAfter: 0, rateLimited: 0, other: 0 };
  const src = querySource(queries.slice().reverse());
  const r = await new Promise((resolve, reject) => {
    const inst = autocannon({
      url: srv.url, connections: overloadConnections, duration: seconds, pipelining: 1, timeout: 20,
      requests: [{
        method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/search?k=10&q=${encodeURIComponent(src.next())}` }),
        onResponse: (status, _body, _ctx, headers) => {
          if (status === 200) counts.ok++;
          else if (status === 503) {
            counts.overloaded++;
            if (Object.keys(headers ?? {}).some((k) => k.toLowerCase() === 'retry-after')) counts.overloadedWithRetryAfter++;
          } else if (status === 429) counts.rateLimited++;
          else counts.other++;
        },
      }],
    }, (err, res) => (err ? reject(err) : resolve(res)));
    autocannon.track(inst, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
  const x = { connections: overloadConnections, seconds, ...counts, timeouts: r.timeouts, errors: r.errors, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max, rssMB: srv.rssNow() };
  const hang = x.timeouts > 0;
  console.log(`\noverload (new, ${x.connections} connections, ${seconds} s): 200 × ${x.ok}, 503 × ${x.overloaded} (${x.overloadedWithRetryAfter} with Retry-After), ` +
    `429 × ${x.rateLimited}, other × ${x.other}; timeouts ${x.timeouts}, socket errors ${x.errors}; p50 ${x.p50Ms} ms, p99 ${x.p99Ms} ms, max ${x.maxMs} ms; RSS ${x.rssMB} MB → ` +
    `${hang ? 'HANG (timeouts)' : x.overloaded === x.overloadedWithRetryAfter ? 'every refusal carried Retry-After, no hang' : 'a 503 came without Retry-After'}`);
  return x;
}

async function soakRun(queries) {
  const srv = await startServer('new');
  console.log(`[soak] server: ${srv.label}; ${srv.datasets} datasets; ${rate} req/s for ${soakMinutes} min, a sample every ${WINDOW_S} s`);
  const src = querySource(queries);
  await load(srv.url, 4, 3, src);
  const windows = [];
  const n = Math.max(2, Math.round((soakMinutes * 60) / WINDOW_S));
  for (let w = 0; w < n; w++) {
    const from = Date.now();
    const r = await load(srv.url, 16, WINDOW_S, src, { overallRate: rate });
    const inWindow = srv.mem.filter((m) => m.t >= from);
    windows.push({
      t: (w + 1) * WINDOW_S, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max,
      errors: r.errors + r.timeouts + r.non2xx, rssMB: srv.rssNow(), peakRssMB: MB(Math.max(0, ...inWindow.map((m) => m.rss))),
    });
    const x = windows[windows.length - 1];
    console.log(`[soak] ${String(x.t).padStart(4)} s: ${x.reqPerSec.toFixed(1)} req/s, p50 ${x.p50Ms} ms, p99 ${x.p99Ms} ms, errors ${x.errors}, RSS ${x.rssMB} MB (peak ${x.peakRssMB})`);
  }
  console.log(`\n  until s   req/s   p50 ms   p99 ms   max ms   errors   RSS MB   peak RSS MB`);
  for (const x of windows)
    console.log(`  ${String(x.t).padStart(7)}  ${x.reqPerSec.toFixed(1).padStart(6)}  ${String(x.p50Ms).padStart(7)}  ${String(x.p99Ms).padStart(7)}  ${String(x.maxMs).padStart(7)}  ${String(x.errors).padStart(7)}  ${String(x.rssMB).padStart(7)}  ${String(x.peakRssMB).padStart(12)}`);
  if (src.wrapped) console.log(`[soak] note: the ${queries.length} queries ran out ${src.wrapped} time(s): later requests repeat earlier texts (answer cache hits)`);
  await srv.stop();
  // flat: the last third against the first third (after the first window, which still warms up)
  const body = windows.length > 2 ? windows.slice(1) : windows;
  const third = Math.max(1, Math.floor(body.length / 3));
  const mean = (a, f) => a.reduce((s, x) => s + f(x), 0) / a.length;
  const rssGrowth = mean(body.slice(-third), (x) => x.rssMB) / mean(body.slice(0, third), (x) => x.rssMB);
  const p99Growth = mean(body.slice(-third), (x) => x.p99Ms) / mean(body.slice(0, third), (x) => x.p99Ms);
  const errors = windows.reduce((s, x) => s + x.errors, 0);
  const flat = rssGrowth <= 1.1 && p99Growth <= 1.5;
  console.log(`\nsoak verdict: ${flat ? 'FLAT' : 'NOT flat'} (RSS last/first third ×${rssGrowth.toFixed(3)}, limit 1.10; p99 ×${p99Growth.toFixed(2)}, limit 1.50); errors ${errors}`);
  return { server: srv.label, rate, minutes: soakMinutes, windows, rssGrowth, p99Growth, flat, errors };
}

(async () => {
  const queries = buildQueries();
  console.log(`${queries.length} distinct queries (e.g. "${queries[0]}", "${queries[1]}", "${queries[2]}")`);
  const budgetS = soak ? soakMinutes * 60 + 300 : modes.length * (levels.length + 2) * (seconds + 5) + 600;
  const killTimer = setTimeout(() => {
    console.error('serve-load: time limit reached, stopping');
    process.exit(1);
  }, budgetS * 1000);
  const result = soak ? await soakRun(queries) : await comparison(queries);
  clearTimeout(killTimer);
  const out = path.join(__dirname, 'out', soak ? 'serve-soak.json' : 'serve-load.json');
  require('../dist/lib/util').writeFileAtomic(out, JSON.stringify({ when: new Date().toISOString(), header, sample, semantic, seconds, queries: queries.length, ...result }, null, 2) + '\n');
  console.log(`written ${path.relative(process.cwd(), out)}`);
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
