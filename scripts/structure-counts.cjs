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
// the import reader and circle finder test/layering.test.ts uses; here they only count, so that an older checkout,
// which may break the layering rules, can be measured too
const { fileImports, importCycles, listTs, stripComments } = require('./import-graph.cjs');

/** The layer table of test/layering.test.ts (LAYERS), read as text. */
function layerTable() {
  const src = fs.readFileSync(path.join(root, 'test', 'layering.test.ts'), 'utf8');
  const m = /LAYERS[^=]*=\s*(\[[\s\S]*?\]);/.exec(src);
  return m ? JSON.parse(m[1].replace(/'/g, '"').replace(/,(\s*\])/g, '$1')) : null;
}
/** The folder of a path relative to lib/: its first segment, or the file's stem for files at lib/'s top. */
const folderOf = (rel) => {
  const parts = rel.split(path.sep);
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
// lines as wc -l and the layering test count them (newline characters)
const linesOf = (f) => fs.readFileSync(f, 'utf8').split('\n').length - 1;
const largest = files.map((f) => ({ file: path.relative(root, f), lines: linesOf(f) })).sort((a, b) => b.lines - a.lines);
const edges = fileImports(lib);
const circles = importCycles(edges);
const layers = layerTable();
const layerOf = new Map((layers ?? []).flatMap((names, i) => names.map((n) => [n, i])));
// an import between folders that does not go to a strictly lower layer (or names a folder the table lacks)
const against = layers ? edges.filter(({ from, to }) => folderOf(from) !== folderOf(to) && !(layerOf.get(folderOf(to)) < layerOf.get(folderOf(from)))).length : null;

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
