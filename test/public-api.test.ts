import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

// The public API: lib/index.ts (curated, by stage) and one entry point per stage (package.json "exports").
// These tests need the compiled dist/ (`npm test` runs tsc first).

const ROOT = path.resolve(__dirname, '..');
const LIB = path.join(ROOT, 'lib');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const stages = fs.readdirSync(LIB).filter((d) => fs.existsSync(path.join(LIB, d, 'index.ts'))).sort();

/** Names a source imports from the package root ("eo-workbench", or ../dist/lib, ../lib): `{ a, type B, c as d }` and `eo.name`. */
function rootImports(src: string): { name: string; typeOnly: boolean }[] {
  const out: { name: string; typeOnly: boolean }[] = [];
  const spec = String.raw`['"](?:eo-workbench|\.\./dist/lib|\.\./lib)['"]`;
  const lists = [
    ...src.matchAll(new RegExp(String.raw`import\s+(type\s+)?\{([^}]*)\}\s*from\s*${spec}`, 'g')),
    ...[...src.matchAll(new RegExp(String.raw`(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*${spec}\s*\)`, 'g'))].map((m) => [m[0], undefined, m[1].replace(/:/g, ' as ')]),
  ];
  for (const m of lists) {
    for (const part of m[2]!.split(',')) {
      const p = part.trim();
      if (!p) continue;
      const typeOnly = Boolean(m[1]) || p.startsWith('type ');
      out.push({ name: p.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim(), typeOnly });
    }
  }
  for (const m of src.matchAll(new RegExp(String.raw`(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*${spec}\s*\)`, 'g')))
    for (const u of src.matchAll(new RegExp(String.raw`\b${m[1]}\.(\w+)`, 'g'))) out.push({ name: u[1], typeOnly: false });
  return out;
}

function userSources(): { file: string; src: string }[] {
  const nb = fs.readdirSync(path.join(ROOT, 'notebooks')).filter((f) => f.endsWith('.ipynb')).map((f) => {
    const cells = JSON.parse(fs.readFileSync(path.join(ROOT, 'notebooks', f), 'utf8')).cells as { cell_type: string; source: string | string[] }[];
    return { file: `notebooks/${f}`, src: cells.filter((c) => c.cell_type === 'code').map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source)).join('\n') };
  });
  const cjs = ['bench', 'scripts'].flatMap((d) =>
    fs.readdirSync(path.join(ROOT, d)).filter((f) => f.endsWith('.cjs')).map((f) => ({ file: `${d}/${f}`, src: fs.readFileSync(path.join(ROOT, d, f), 'utf8') })));
  // tests import from '../lib' (the same root): their names must stay exported too
  const tests = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.ts') && f !== path.basename(__filename))
    .map((f) => ({ file: `test/${f}`, src: fs.readFileSync(path.join(__dirname, f), 'utf8') }));
  return [...nb, ...cjs, ...tests];
}

test('the root import reader sees named, type-only and namespace imports', () => {
  const src = `import {\n  loadSnapshot, type Corpus,\n  bm25Scorer as b,\n} from "eo-workbench";\nconst eo = require('../dist/lib');\neo.topKScoredHits(x);\nconst { sha256 } = require('eo-workbench');\nimport { y } from 'eo-workbench/retrieve';`;
  assert.equal(rootImports(src), [
    { name: 'loadSnapshot', typeOnly: false }, { name: 'Corpus', typeOnly: true }, { name: 'bm25Scorer', typeOnly: false },
    { name: 'sha256', typeOnly: false }, { name: 'topKScoredHits', typeOnly: false },
  ]);
});

test('everything the notebooks, bench, scripts and tests import from the package root is exported by lib/index.ts', () => {
  const root = require('../lib') as Record<string, unknown>;
  const indexText = fs.readFileSync(path.join(LIB, 'index.ts'), 'utf8');
  const missing: string[] = [];
  let count = 0;
  for (const { file, src } of userSources()) {
    for (const { name, typeOnly } of rootImports(src)) {
      count++;
      // a value (or class) exists at run time; a pure type (interface, alias) must be listed as `type Name`
      const ok = name in root || new RegExp(String.raw`\btype ${name}\b`).test(indexText);
      if (!ok) missing.push(`${file}: ${typeOnly ? 'type ' : ''}${name}`);
    }
  }
  assert.ok(count > 100, `only ${count} imports found: the reader is broken`);
  assert.equal(missing, [], `add these to lib/index.ts (or import them from eo-workbench/<stage>):\n  ${missing.join('\n  ')}`);
});

// The root's runtime names, listed: adding one is a decision made here (the rest lives at eo-workbench/<stage>).
const ROOT_NAMES = [
  'DEFAULT_RANKING', 'EoError', 'agenticReranker', 'analyticAlpha', 'buildTable2', 'createEncoder', 'createLlmClient',
  'createSearchServer', 'evaluateRun', 'finetuneUseLite', 'fuseConvex', 'isEoError', 'judgeRun', 'listwiseReranker',
  'loadOrBuildBenchmark', 'loadOrBuildBm25', 'loadOrTrainNnssc', 'loadSearchEngine', 'loadSnapshot', 'offlineReranker',
  'routeQuery', 'search', 'searchBatch', 'studyHybrid', 'summarize', 'trainNnssc',
];

test('the root exports exactly the listed names: the query path and one entry per stage, named exports only', () => {
  const text = fs.readFileSync(path.join(LIB, 'index.ts'), 'utf8');
  assert.not.match(text, /export\s*\*/);
  assert.equal(Object.keys(require('../lib')).sort(), [...ROOT_NAMES].sort());
  // every stage with an entry point has at least one name at the root, except the plumbing layers
  const plumbing = new Set(['util', 'store', 'tensor', 'lessons']);
  const fromStages = new Set([...text.matchAll(/from '\.\/([\w-]+)'/g)].map((m) => m[1]));
  for (const s of stages) if (!plumbing.has(s)) assert.ok(fromStages.has(s), `the root has no entry for stage ${s}`);
});

test('package.json "exports" has one entry point per stage, each built with its types', () => {
  const exp = pkg.exports as Record<string, { types: string; default: string } | string>;
  for (const s of [...stages, 'errors']) {
    const e = exp[`./${s}`];
    assert.ok(e && typeof e === 'object', `package.json exports lacks "./${s}"`);
    assert.equal(pkg.typesVersions['*'][s], [e.types.replace(/^\.\//, '')], `typesVersions for ${s} (TypeScript with moduleResolution node)`);
    for (const f of [e.types, e.default]) assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} missing (run npm run build)`);
    assert.is(require.resolve(`eo-workbench/${s}`), path.join(ROOT, e.default));
  }
  // a stage entry point gives that stage's full API, e.g. internals the root does not list
  const retrieve = require('eo-workbench/retrieve');
  assert.type(retrieve.bm25Scores, 'function');
  assert.type(require('eo-workbench').EoError, 'function');
});

test('eo search loads no service, LLM SDK, hnswlib or TensorFlow.js, and answers', () => {
  const eo = path.join(ROOT, 'dist', 'lib', 'cli', 'eo.js');
  const heavy = ['fastify', 'openai', '@anthropic-ai/sdk', 'hnswlib-node', '@tensorflow/tfjs'];
  const prog = `process.argv = [process.argv[0], ${JSON.stringify(eo)}, 'search', 'sea ice extent', '--retriever', 'bm25', '--sample', '--json'];
require(${JSON.stringify(eo)});
process.on('exit', () => process.stderr.write('\\n@@' + JSON.stringify(${JSON.stringify(heavy)}.filter((p) => Object.keys(require.cache).some((f) => f.includes('/node_modules/' + p + '/')))) + '\\n'));`;
  const r = spawnSync(process.execPath, ['-e', prog], { encoding: 'utf8', cwd: ROOT });
  assert.is(r.status, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).results.length > 0, 'no result');
  assert.equal(JSON.parse(/@@(.*)\s*$/.exec(r.stderr)![1]), []);
});

test.run();
