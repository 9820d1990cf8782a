import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { loadSnapshot } from '../lib/data/snapshot';
import { loadDefaultRankingEngines } from '../lib/lessons/05-fusion/styles';
import { prefitDefaultRanking } from '../lib/lessons/05-fusion/prefit';

/** A stored fusion record without the fields that say when it was written (`created`, and the hash that covers it). */
function recordValues(file: string): unknown {
  const strip = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !['created', 'sha256'].includes(k)).map(([k, x]) => [k, strip(x)])) : v;
  return strip(JSON.parse(fs.readFileSync(file, 'utf8')));
}

test('prefitDefaultRanking: a second process stores the default-ranking section\'s fusion records, the same as the section would (sample snapshot)', async () => {
  const corpus = loadSnapshot({ sample: true });
  // the section's engines as it loads them: every record they read, and what it holds
  const engines = await loadDefaultRankingEngines(corpus, true);
  const files = [...new Set(engines.all.flatMap((e) => [e.fusion.recordFile, e.fusion.adaptive?.recordFile]).filter((f): f is string => !!f))];
  for (const e of engines.all) e.dispose();
  assert.ok(files.length >= 3, `records: ${files.join(', ')}`);
  const before = new Map(files.map((f) => [f, recordValues(f)]));
  // gone, they are fitted again by the child alone
  for (const f of files) fs.rmSync(f);
  const outcome = await prefitDefaultRanking({ sample: true });
  assert.is(outcome.code, 0, `the child exited with ${outcome.signal ?? outcome.code}`);
  for (const f of files) {
    assert.ok(fs.existsSync(f), `${f} stored by the child`);
    assert.equal(recordValues(f), before.get(f), `${f}: the same fit`);
  }
  // and the section's engines now read them: no record is set again
  const lines: string[] = [];
  const again = await loadDefaultRankingEngines(corpus, true, (l) => lines.push(l));
  for (const e of again.all) e.dispose();
  assert.not.ok(lines.some((l) => /setting α|fitting the adaptive/.test(l)), lines.join('\n'));
});

test('prefitDefaultRanking: a child that fails says why (the end of its stderr), and the outcome names its exit code', async () => {
  const before = process.env.EO_DATA_DIR;
  process.env.EO_DATA_DIR = '/nonexistent/eo-prefit-test'; // the child inherits it: no snapshot to load
  try {
    const outcome = await prefitDefaultRanking({ sample: true });
    assert.is(outcome.code, 1);
    assert.is(outcome.signal, null);
    assert.match(outcome.said, /snapshot folder not found: \/nonexistent\/eo-prefit-test/);
    assert.ok(outcome.said.length <= 2000);
  } finally {
    if (before === undefined) delete process.env.EO_DATA_DIR;
    else process.env.EO_DATA_DIR = before;
  }
});

test.run();
