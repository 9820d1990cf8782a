import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The layering of lib/: folders in pipeline order. A folder may import (statically, `export … from`, `require`,
 * `import()` or `import('…').Type`) only folders of a strictly LOWER layer; imports inside one folder are free.
 * This table is the documentation of the layering (DESIGN.md repeats it as a picture):
 *
 *   errors, util    the error type; files, hashes, seeded random, repository paths, the prompt-file loader
 *   tensor          TensorFlow.js backend choice           store   the checkpoint file format (train writes, retrieve/encode read)
 *   llm             provider-neutral chat client, `LlmComplete` (domain-free, so bench's LLM query writer can use it)
 *   data, metrics   the snapshot (datasets, publications, links); IR metrics, TREC files, paired tests
 *   bench           the citation-grounded benchmark (queries, labels, split)
 *   encode          sentence encoders and the embedding cache
 *   retrieve        scorers: BM25, cosine, HNSW, NN-SSC scoring
 *   train           MNRL fine-tuning, NN-SSC training (reads retrieve's model definitions)
 *   fuse            min-max, convex fusion, analytic α (Eq. 7), R2, RRF
 *   router, rerank, judge   tool routing; LLM/offline reranking (Algorithm 1); the P@K judge
 *   agent           agentic rerank (uses rerank's windows)
 *   search          the one query path: route → retrieve → fuse → rerank → explain
 *   study           the experiment harness: scorers over both splits, hybrids studied, style rows, rerank experiments
 *   serve, report   HTTP service and page; tables, figures, results files
 *   lessons         one folder per notebook (05-fusion/ …): the steps its cells call, its text, "Try it" knobs, results
 *   cli             the `eo` command
 *   index           lib/index.ts, the public entry point (nothing in lib/ imports it)
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['util'],
  ['tensor', 'store', 'llm'],
  ['data', 'metrics'],
  ['bench'],
  ['encode'],
  ['retrieve'],
  ['train'],
  ['fuse'],
  ['router', 'rerank', 'judge'],
  ['agent'],
  ['search'],
  ['study'],
  ['serve', 'report'],
  ['lessons'],
  ['cli'],
  ['index'],
];

// the import reader and the circle finder, shared with scripts/structure-counts.cjs
// eslint-disable-next-line @typescript-eslint/no-var-requires
const importGraph = require('../scripts/import-graph.cjs');
export const stripComments: (src: string) => string = importGraph.stripComments;
export const importSpecifiers: (src: string) => { spec: string; line: number }[] = importGraph.importSpecifiers;
const listTs: (dir: string) => string[] = importGraph.listTs;
const filesImports: (dir: string) => { from: string; to: string }[] = importGraph.fileImports;
const importCycles: (edges: readonly { from: string; to: string }[]) => string[][] = importGraph.importCycles;

const LIB = path.resolve(__dirname, '..', 'lib');

export interface ImportEdge {
  from: string;
  to: string;
  /** Importing file (relative to the repo) and line, for the error message. */
  file: string;
  line: number;
  spec: string;
}

/** The folder of a path under lib/: its first segment, or the file's stem for files at lib/'s top (errors.ts, index.ts). */
export function folderOf(absPath: string, lib = LIB): string {
  const rel = path.relative(lib, absPath);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return '(outside lib)';
  const parts = rel.split(path.sep);
  if (parts.length > 1) return parts[0];
  return parts[0] === '' ? 'index' : parts[0].replace(/\.(ts|js|json)$/, '');
}

/** Every import between two different folders of lib/. */
export function folderImports(lib = LIB): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of listTs(lib)) {
    const from = folderOf(file, lib);
    for (const { spec, line } of importSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const to = folderOf(path.resolve(path.dirname(file), spec), lib);
      if (to !== from) edges.push({ from, to, file: path.relative(path.dirname(lib), file), line, spec });
    }
  }
  return edges;
}

/** The layer index of each folder. */
export function layerIndex(layers: readonly (readonly string[])[] = LAYERS): Map<string, number> {
  const m = new Map<string, number>();
  layers.forEach((names, i) => names.forEach((n) => m.set(n, i)));
  return m;
}

/** Imports that go against the layer order (same layer, upwards, or to/from a folder the table does not name). */
export function layeringViolations(edges: readonly ImportEdge[], layers: readonly (readonly string[])[] = LAYERS): string[] {
  const idx = layerIndex(layers);
  const out: string[] = [];
  for (const e of edges) {
    const a = idx.get(e.from);
    const b = idx.get(e.to);
    const where = `${e.file}:${e.line} imports '${e.spec}'`;
    if (a === undefined) out.push(`${where}: folder "${e.from}" is not in the layer table (test/layering.test.ts LAYERS)`);
    else if (b === undefined) out.push(`${where}: folder "${e.to}" is not in the layer table (test/layering.test.ts LAYERS)`);
    else if (b >= a) out.push(`${where}: ${e.from} (layer ${a}) may only import lower layers, but ${e.to} is layer ${b}`);
  }
  return out;
}

/** Folder-level cycles (strongly connected components of more than one folder, or a self-loop). */
export const folderCycles: (edges: readonly { from: string; to: string }[]) => string[][] = importCycles;

test('every folder of lib/ is in the layer table, once', () => {
  const named = LAYERS.flat();
  assert.equal(new Set(named).size, named.length, 'a folder appears in two layers');
  const idx = layerIndex();
  const folders = fs
    .readdirSync(LIB, { withFileTypes: true })
    .filter((e) => (e.isDirectory() && listTs(path.join(LIB, e.name)).length > 0) || (e.isFile() && e.name.endsWith('.ts')))
    .map((e) => folderOf(path.join(LIB, e.name, e.isDirectory() ? 'x.ts' : '')));
  for (const f of folders) assert.ok(idx.has(f), `lib/${f} is not in the layer table: add it to LAYERS in test/layering.test.ts`);
});

test('DESIGN.md\'s layer table is LAYERS, row by row', () => {
  const design = fs.readFileSync(path.join(LIB, '..', 'DESIGN.md'), 'utf8');
  const section = design.slice(design.indexOf('## The layering rule'));
  const block = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  // " 3  data · metrics": the layer number, then the folders (a note in parentheses may follow)
  const rows = block.split('\n').map((l) => /^\s*(\d+)\s+(.+?)(?:\s{2,}\(.*\))?\s*$/.exec(l)).filter((m): m is RegExpExecArray => !!m);
  assert.equal(rows.map((m) => Number(m[1])), LAYERS.map((_, i) => i), 'DESIGN.md numbers every layer once, in order');
  assert.equal(rows.map((m) => m[2].split(' · ').map((x) => x.trim())), LAYERS.map((l) => [...l]), 'DESIGN.md names the folders of each layer as LAYERS does');
});

test('lib/ imports follow the layer order (pipeline order) and form no folder cycle', () => {
  const edges = folderImports();
  assert.ok(edges.length > 100, `only ${edges.length} cross-folder imports found: the import reader is broken`);
  const bad = layeringViolations(edges);
  assert.equal(bad, [], `imports against the layering:\n  ${bad.join('\n  ')}`);
  assert.equal(folderCycles(edges), []);
  assert.ok(!edges.some((e) => e.to === 'index' && e.from !== 'index'), 'nothing in lib/ may import lib/index.ts');
});

/** Every import between two files of lib/ (the specifier resolved to `x.ts` or `x/index.ts`; type imports count). */
export function fileImports(lib = LIB): { from: string; to: string }[] {
  return filesImports(lib);
}

test('lib/ files import each other in no circle', () => {
  const edges = fileImports();
  assert.ok(edges.length > 500, `only ${edges.length} file imports found: the resolver is broken`);
  assert.equal(folderCycles(edges).map((c) => c.join(' <-> ')), [], 'a file circle in lib/ (files that import each other, directly or around a ring)');
});

/** The most lines a file of lib/ may have (issue 46): a longer one is split along its dependencies. */
const MAX_FILE_LINES = 450;

test(`every file of lib/ has at most ${MAX_FILE_LINES} lines`, () => {
  const long = listTs(LIB).map((f) => ({ f: path.relative(LIB, f), n: fs.readFileSync(f, 'utf8').split('\n').length - 1 })).filter((x) => x.n > MAX_FILE_LINES);
  assert.equal(long.map((x) => `${x.f}: ${x.n} lines`), [], 'split these along their dependencies (a part that the rest imports, re-exported where callers import it)');
});

test('the file-circle check finds a ring through an index file and a type-position import', () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'eo-layering-'));
  fs.mkdirSync(path.join(dir, 'x'));
  fs.writeFileSync(path.join(dir, 'x', 'index.ts'), "export * from './a';\n");
  fs.writeFileSync(path.join(dir, 'x', 'a.ts'), "export type A = import('../b').B;\n");
  fs.writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './x';\nexport type B = A | 1;\n");
  fs.writeFileSync(path.join(dir, 'c.ts'), "import type { B } from './b';\n");
  assert.equal(folderCycles(fileImports(dir)), [['b.ts', 'x/a.ts', 'x/index.ts']]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the import reader sees every import form and ignores comments and strings', () => {
  const src = [
    "import { a } from '../data/snapshot';",
    "import type { B } from \"../bench/types\";",
    'export * from "./local";',
    "export { c } from '../fuse/alpha';",
    "import '../tensor/register';",
    'const x = require("../llm/client");',
    "type T = import('../encode/types').SentenceEncoder;",
    "const lazy = () => import('../serve/server');",
    "import {\n  d,\n  e,\n} from '../retrieve/bm25';",
    "// import { no } from '../cli/eo';",
    "/* require('../report/export') */",
    "const s = 'import { no } from \"../agent/x\"';",
    "import * as fs from 'node:fs';",
  ].join('\n');
  assert.equal(
    importSpecifiers(src).map((s) => s.spec),
    ['../data/snapshot', '../bench/types', './local', '../fuse/alpha', '../tensor/register', '../llm/client', '../encode/types', '../serve/server', '../retrieve/bm25'],
  );
  assert.equal(importSpecifiers(src).find((s) => s.spec === '../retrieve/bm25')!.line, 12);
  assert.is(folderOf(path.join(LIB, 'errors.ts')), 'errors');
  assert.is(folderOf(path.join(LIB, 'index.ts')), 'index');
  assert.is(folderOf(LIB), 'index');
  assert.is(folderOf(path.join(LIB, 'fuse', 'alpha')), 'fuse');
  assert.is(folderOf(path.join(LIB, '..', 'package.json')), '(outside lib)');
});

test('the checker fails on an upward import, a same-layer import, an unknown folder and a cycle', () => {
  const e = (from: string, to: string) => ({ from, to, file: `lib/${from}/x.ts`, line: 1, spec: `../${to}/y` });
  // the real layering accepts a downward import…
  assert.equal(layeringViolations([e('fuse', 'retrieve'), e('search', 'router')]), []);
  // …and refuses the edges this repository used to have (retrieve → fuse, encode → train, llm → bench)
  const bad = layeringViolations([e('retrieve', 'fuse'), e('encode', 'train'), e('llm', 'bench')]);
  assert.is(bad.length, 3);
  assert.match(bad[0], /lib\/retrieve\/x\.ts:1 imports '\.\.\/fuse\/y': retrieve \(layer \d+\) may only import lower layers/);
  assert.is(layeringViolations([e('router', 'rerank')]).length, 1, 'same layer is refused');
  assert.match(layeringViolations([e('newstage', 'data')])[0], /"newstage" is not in the layer table/);
  assert.equal(folderCycles([e('encode', 'train'), e('train', 'encode'), e('fuse', 'retrieve')]), [['encode', 'train']]);
  assert.equal(folderCycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd')]), [['a', 'b', 'c']]);
  assert.equal(folderCycles([e('a', 'b'), e('b', 'c')]), []);
});

test.run();
