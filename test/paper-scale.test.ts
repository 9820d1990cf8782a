import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

// Smoke run of the scale model (bench/paper-scale.cjs --quick): every stage present, times and sizes sane, LLM
// tokens computed from the real prompt template. Speed itself is not asserted (that is the bench's job).
test('paper-scale --quick writes one row per stage and the LLM cost table', () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eo-scale-')), 'scale.json');
  const root = path.resolve(__dirname, '..');
  const r = spawnSync(process.execPath, [path.join(root, 'bench', 'paper-scale.cjs'), '--quick', '--out', out], { cwd: root, encoding: 'utf8', timeout: 240_000 });
  assert.is(r.status, 0, `exit ${r.status}: ${r.stderr?.slice(-2000)}`);
  const j = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.is(j.format, 'eo-paper-scale/1');
  assert.is(j.quick, true);
  const stages: Array<Record<string, any>> = j.stages;
  const names = stages.map((s) => s.stage).join('\n');
  for (const want of [/^BM25 index build/m, /^BM25 scoring/m, /^cosine scoring 512-d/m, /^cosine scoring 768-d/m, /^NN-SSC scoring 512-d/m, /^NN-SSC scoring 768-d/m, /^min-max convex fusion/m, /^metrics 2 systems/m, /^NN-SSC epoch/m, /^fine-tuning step/m, /^LLM listwise rerank, 200 queries/m, /^LLM listwise rerank, 4234 queries/m])
    assert.match(names, want);
  for (const s of stages.filter((x) => typeof x.seconds === 'number' && x.paperSeconds !== null)) {
    assert.ok(s.seconds > 0 && Number.isFinite(s.paperSeconds) && s.paperSeconds >= s.seconds * 0.99, `${s.stage}: measured ${s.seconds}, paper ${s.paperSeconds}`);
    assert.ok(s.peakRssMB > 0 && typeof s.verdict === 'string', s.stage);
  }
  const epoch = stages.find((s) => /^NN-SSC epoch/.test(s.stage))!;
  assert.is(epoch.epochs, 1000);
  assert.ok(Math.abs(epoch.paperSeconds - epoch.secondsPerEpoch * 1000) < 1e-6 * epoch.paperSeconds);
  // 2.24 labels per query on average (1 + Poisson(1.24)), within sampling noise of 500 queries
  assert.ok(Math.abs(j.sizes.measured.labelsPerQuery - 2.24) < 0.2, String(j.sizes.measured.labelsPerQuery));
  // LLM: one call per query per model; input tokens at least the template plus 10 candidate titles
  const llm: Array<Record<string, any>> = j.llm;
  const models: Array<Record<string, any>> = JSON.parse(fs.readFileSync(path.join(root, 'lib', 'llm', 'models.json'), 'utf8')).models;
  assert.ok(llm.length >= 2);
  for (const row of llm) {
    assert.is(row.calls, row.queries);
    assert.ok(row.inputTokens / row.calls > 300, `tokens per call ${row.inputTokens / row.calls}`);
    // the cost is the model's list prices times the tokens (reasoning tokens, where a model has them, only add)
    const m = models.find((x) => x.id === row.model)!;
    const base = (row.inputTokens * m.inputPricePerMTok + row.outputTokens * m.outputPricePerMTok) / 1e6;
    const reasoning = (row.calls * (m.estimatedReasoningTokens ?? 0) * m.outputPricePerMTok) / 1e6;
    assert.ok(row.costUsd >= base - 1e-3 && row.costUsd <= base + reasoning + 1e-3, `${row.model}: $${row.costUsd} vs list prices $${base.toFixed(4)} (+ up to $${reasoning.toFixed(4)} reasoning)`);
    if (m.inputPricePerMTok > 0) assert.ok(row.costUsd > 0, row.model);
  }
});

test.run();
