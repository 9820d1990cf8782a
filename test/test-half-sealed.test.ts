// The style benchmark's test half is sealed: none of its query text reaches the library or the tests. Every run of five
// consecutive words of a test-half query (lower-cased letter/digit words) is looked for in every file under lib/ and
// test/; only the benchmark's own data file (lib/bench/styles/topics.json) may hold them. A run that the catalogue itself
// holds (a short name such as "MUR-JPL-L4-GLOB-v4.1", a phrase of a title, keyword or abstract of the full snapshot) is
// corpus text, not the test half's, and is not counted. Rules, fixtures and examples are written from the dev half, the
// corpus or invented text instead.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadStyleTopics, styleQueryText, styleTopicSplit, QUERY_STYLES } from '../lib/bench/styles';
import { repoRoot } from '../lib/util/paths';
import { loadSnapshot } from '../lib/data/snapshot';

const RUN = 5;
const ALLOWED = new Set([path.join('lib', 'bench', 'styles', 'topics.json')]);

const words = (text: string): string[] => [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);

/** Every run of `RUN` words of each text → the id of a query it comes from. */
function wordRuns(texts: readonly { id: string; text: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { id, text } of texts) {
    const w = words(text);
    for (let i = 0; i + RUN <= w.length; i++) out.set(w.slice(i, i + RUN).join(' '), id);
  }
  return out;
}

/** The runs of `runs` found in `text`, with their query ids. */
function leaks(text: string, runs: ReadonlyMap<string, string>): { run: string; query: string }[] {
  const w = words(text);
  const found: { run: string; query: string }[] = [];
  for (let i = 0; i + RUN <= w.length; i++) {
    const run = w.slice(i, i + RUN).join(' ');
    const q = runs.get(run);
    if (q) found.push({ run, query: q });
  }
  return found;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The runs minus those the snapshot holds (a dataset's short name, title, keywords or abstract; a publication's title or abstract). */
function withoutCorpusRuns(runs: Map<string, string>): Map<string, string> {
  const out = new Map(runs);
  const snapshot = loadSnapshot();
  const texts = [
    ...snapshot.datasets.flatMap((d) => [d.shortName ?? '', d.longName, d.keywords.join(' , '), d.abstract]),
    ...snapshot.publications.flatMap((p) => [p.title, p.abstract ?? '']),
  ];
  {
    for (const text of texts) {
      const w = words(text);
      for (let i = 0; i + RUN <= w.length; i++) out.delete(w.slice(i, i + RUN).join(' '));
    }
  }
  return out;
}

function halfQueries(half: 'dev' | 'test'): { id: string; text: string }[] {
  const topics = loadStyleTopics();
  const split = styleTopicSplit(topics);
  return topics.filter((t) => split.get(t.id) === half).flatMap((t) => QUERY_STYLES.flatMap((s) => t.queries[s].map((q, i) => ({ id: `${t.id}/${s}/${i + 1}`, text: styleQueryText(q) }))));
}

test('the detector finds a five-word run of a test-half query, and only runs of five', () => {
  const queries = halfQueries('test');
  const runs = wordRuns(queries);
  assert.ok(queries.length > 300 && runs.size > 1000, `${queries.length} test-half queries, ${runs.size} runs`);
  const long = queries.find((q) => words(q.text).length >= 8)!;
  const w = words(long.text);
  assert.equal(leaks(`const fixture = "${w.slice(1, 6).join(' ')}";`, runs).map((l) => l.query), [long.id]);
  assert.equal(leaks(w.slice(1, 5).join(' '), runs), [], 'four words are not a leak');
});

test('no test-half query text in lib/ or test/ (outside the benchmark data file)', () => {
  const root = repoRoot();
  const all = wordRuns(halfQueries('test'));
  const runs = withoutCorpusRuns(all);
  assert.ok(runs.size > 0.8 * all.size, `${all.size - runs.size} of ${all.size} runs are also corpus text`);
  const problems: string[] = [];
  for (const dir of ['lib', 'test']) {
    for (const file of filesUnder(path.join(root, dir))) {
      const rel = path.relative(root, file);
      if (ALLOWED.has(rel)) continue;
      const buf = fs.readFileSync(file);
      if (buf.includes(0)) continue; // binary
      const text = buf.toString('utf8');
      for (const l of leaks(text, runs)) problems.push(`${rel}: "${l.run}" (test-half query ${l.query})`);
    }
  }
  assert.equal(problems, [], `test-half text found:\n${problems.join('\n')}`);
});

test.run();
