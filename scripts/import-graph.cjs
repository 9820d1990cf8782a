// The import graph of a TypeScript tree, read as text (nothing is compiled or run): every relative import of every
// form, resolved to files, and the circles among them. One reader for test/layering.test.ts (which holds lib/ to the
// layer order and to no circle) and scripts/structure-counts.cjs (which counts, also on older checkouts).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/**
 * Blank out comments and every string that is not a module specifier (after `from`, `import`, `import(`,
 * `require(`), keeping line breaks so line numbers still match.
 * @param {string} src
 * @returns {string}
 */
function stripComments(src) {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const n = src[i + 1];
    if (c === '/' && n === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '/' && n === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      const literal = src.slice(i, j + 1);
      out += /(?:\bfrom|\bimport|\b(?:import|require)\s*\()\s*$/.test(out.slice(-40)) ? literal : literal.replace(/[^\n]/g, ' ');
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const IMPORT_PATTERNS = [
  /\b(?:import|export)\s[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/g, // import x from '…', export { x } from '…', import type …
  /\bimport\s*(['"])([^'"]+)\1/g, // import '…' (side effects)
  /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g, // import('…'), also in type positions
  /\brequire\s*\(\s*(['"])([^'"]+)\1\s*\)/g, // require('…')
];

/**
 * Relative module specifiers of one source text, with their 1-based lines.
 * @param {string} src
 * @returns {{ spec: string; line: number }[]}
 */
function importSpecifiers(src) {
  const code = stripComments(src);
  const found = [];
  for (const re of IMPORT_PATTERNS) {
    for (const m of code.matchAll(re)) {
      if (!m[2].startsWith('.')) continue;
      const at = m.index + m[0].lastIndexOf(m[2]);
      if (found.some((f) => f.at === at)) continue;
      found.push({ spec: m[2], line: code.slice(0, at).split('\n').length, at });
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ spec, line }) => ({ spec, line }));
}

/**
 * Every `.ts` file under `dir`, recursively.
 * @param {string} dir
 * @returns {string[]}
 */
function listTs(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listTs(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Every import between two files under `dir` (the specifier resolved to `x.ts` or `x/index.ts`; type imports count),
 * as paths relative to `dir`.
 * @param {string} dir
 * @returns {{ from: string; to: string }[]}
 */
function fileImports(dir) {
  const files = new Set(listTs(dir));
  const edges = [];
  for (const file of files) {
    for (const { spec } of importSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const base = path.resolve(path.dirname(file), spec);
      const to = [`${base}.ts`, path.join(base, 'index.ts')].find((c) => files.has(c));
      if (to) edges.push({ from: path.relative(dir, file), to: path.relative(dir, to) });
    }
  }
  return edges;
}

/**
 * The circles of a graph: its strongly connected components of more than one node, or a node importing itself
 * (Tarjan's algorithm), each sorted.
 * @param {readonly { from: string; to: string }[]} edges
 * @returns {string[][]}
 */
function importCycles(edges) {
  const adj = new Map();
  for (const e of edges) {
    if (!adj.has(e.from)) adj.set(e.from, new Set());
    if (!adj.has(e.to)) adj.set(e.to, new Set());
    adj.get(e.from).add(e.to);
  }
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || adj.get(v).has(v)) cycles.push(scc.sort());
    }
  };
  for (const v of [...adj.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

module.exports = { stripComments, importSpecifiers, listTs, fileImports, importCycles };
