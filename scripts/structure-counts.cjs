#!/usr/bin/env node
// The structure figures issue 46 asks for, before and after (a checkout's lib/ and notebooks/ read as text; nothing is
// run): exported names in lib/lessons and lib/report, file circles in lib/ (type imports counted), the largest file,
// library names imported per notebook, and imports that point up or across the layer table (test/layering.test.ts).
//   node scripts/structure-counts.cjs [CHECKOUT]   (default: this one; CHECKOUT e.g. a `git archive` export of an older commit)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
const lib = path.join(root, 'lib');
if (!fs.existsSync(lib)) {
  console.error(`structure-counts: no lib/ under ${root}`);
  process.exit(2);
}
const listTs = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const p = path.join(dir, e.name);
  return e.isDirectory() ? listTs(p) : e.name.endsWith('.ts') ? [p] : [];
});
// The import reading follows test/layering.test.ts (which asserts the layer order and no circle); here it only counts,
// so that an older checkout, which may break those rules, can be measured too.
const IMPORT_PATTERNS = [
  /\b(?:import|export)\s[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/g,
  /\bimport\s*(['"])([^'"]+)\1/g,
  /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
  /\brequire\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
];
const stripComments = (src) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
const specifiers = (src) => {
  const code = stripComments(src);
  return [...new Set(IMPORT_PATTERNS.flatMap((re) => [...code.matchAll(re)].map((m) => m[2]).filter((s) => s.startsWith('.'))))];
};
/** Every import between two files of lib/ (`x.ts` or `x/index.ts`). */
function fileImports() {
  const set = new Set(files);
  const edges = [];
  for (const f of files)
    for (const spec of specifiers(fs.readFileSync(f, 'utf8'))) {
      const base = path.resolve(path.dirname(f), spec);
      const to = [`${base}.ts`, path.join(base, 'index.ts')].find((c) => set.has(c));
      if (to) edges.push([f, to]);
    }
  return edges;
}
/** Strongly connected components of more than one node (Tarjan). */
function circlesOf(edges) {
  const adj = new Map();
  for (const [a, b] of edges) {
    if (!adj.has(a)) adj.set(a, new Set());
    if (!adj.has(b)) adj.set(b, new Set());
    adj.get(a).add(b);
  }
  let n = 0;
  const index = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  const visit = (v) => {
    index.set(v, n); low.set(v, n); n++; stack.push(v); on.add(v);
    for (const w of adj.get(v)) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const c = [];
      let w;
      do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1) out.push(c.map((x) => path.relative(lib, x)).sort());
    }
  };
  for (const v of [...adj.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}
/** The layer table of test/layering.test.ts (LAYERS), read as text. */
function layerTable() {
  const src = fs.readFileSync(path.join(root, 'test', 'layering.test.ts'), 'utf8');
  const m = /LAYERS[^=]*=\s*(\[[\s\S]*?\]);/.exec(src);
  return m ? JSON.parse(m[1].replace(/'/g, '"').replace(/,(\s*\])/g, '$1')) : null;
}
const folderOf = (f) => {
  const parts = path.relative(lib, f).split(path.sep);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, '');
};

/** Names a file exports itself (declarations and `export { … }` without `from`); re-exports are not counted. */
function exportedNames(src) {
  const code = stripComments(src);
  const names = new Set();
  for (const m of code.matchAll(/\bexport\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]);
  for (const m of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)/g))
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, '').trim();
      if (name) names.add(name);
    }
  return names;
}

const files = listTs(lib);
const exportsUnder = (folder) => files.filter((f) => f.startsWith(path.join(lib, folder) + path.sep)).reduce((n, f) => n + exportedNames(fs.readFileSync(f, 'utf8')).size, 0);
const linesOf = (f) => fs.readFileSync(f, 'utf8').split('\n').length;
const largest = files.map((f) => ({ file: path.relative(root, f), lines: linesOf(f) })).sort((a, b) => b.lines - a.lines);
const edges = fileImports();
const circles = circlesOf(edges);
const layers = layerTable();
const layerOf = new Map((layers ?? []).flatMap((names, i) => names.map((n) => [n, i])));
// an import between folders that does not go to a strictly lower layer (or names a folder the table lacks)
const against = layers ? edges.filter(([a, b]) => folderOf(a) !== folderOf(b) && !(layerOf.get(folderOf(b)) < layerOf.get(folderOf(a)))).length : null;

/** Library names a notebook's code cells import from the package (`eo-workbench` and its sub-paths). */
function notebookImports(file) {
  const nb = JSON.parse(fs.readFileSync(file, 'utf8'));
  const names = new Set();
  for (const cell of nb.cells ?? []) {
    if (cell.cell_type !== 'code') continue;
    const src = [].concat(cell.source ?? []).join('');
    for (const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*["'](eo-workbench[^"']*)["']/g))
      for (const part of m[1].split(',')) {
        const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
        if (name) names.add(name);
      }
  }
  return names.size;
}
const notebooksDir = path.join(root, 'notebooks');
const perNotebook = fs.existsSync(notebooksDir) ? fs.readdirSync(notebooksDir).filter((f) => f.endsWith('.ipynb')).sort().map((f) => [f.replace(/\.ipynb$/, ''), notebookImports(path.join(notebooksDir, f))]) : [];

const out = {
  checkout: root,
  exportedNames: { lessons: exportsUnder('lessons'), report: exportsUnder('report') },
  fileCircles: circles.map((c) => c.join(' <-> ')),
  largestFiles: largest.slice(0, 3),
  filesOver450Lines: largest.filter((f) => f.lines > 450).length,
  libLines: files.reduce((n, f) => n + linesOf(f), 0),
  importsAgainstLayers: against,
  namesImportedPerNotebook: Object.fromEntries(perNotebook),
};
console.log(JSON.stringify(out, null, 2));
