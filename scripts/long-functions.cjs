#!/usr/bin/env node
// List every function in lib/ whose body is longer than a limit (default 80 lines), longest first, with file and
// line, and say whether its doc comment gives a reason for the length (a comment containing "Long because").
// The house rule (issue "A house a maintainer can live in", item 5): no function over ~80 lines without a reason
// in its comment.
//
//   node scripts/long-functions.cjs [--max N] [--dir lib] [--unexplained] [--json]
//
// A function is a declaration, method, accessor, constructor, function expression or arrow function with a block
// body; its length is the lines from the opening to the closing brace of its body. A nested function counts in
// its parent's length as well as on its own row (the parent still reads as that long). --unexplained lists only
// those without a reason; the exit code is 0 either way (a report, not a gate).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..');
/** The words a doc comment uses to say why a function is long (searched case-insensitively). */
const REASON = /long because/i;

function parseArgs(argv) {
  const o = { max: 80, dir: 'lib', unexplained: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--max') o.max = Number(argv[++i]);
    else if (a === '--dir') o.dir = argv[++i];
    else if (a === '--unexplained') o.unexplained = true;
    else if (a === '--json') o.json = true;
    else throw new Error(`unknown option ${a}\nusage: node scripts/long-functions.cjs [--max N] [--dir lib] [--unexplained] [--json]`);
  }
  if (!(o.max > 0)) throw new Error('--max wants a positive number');
  return o;
}

function tsFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** The name a reader would search for: `f`, `Class.method`, `const x = () =>`, else `(anonymous)`. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) {
    const cls = node.parent && (ts.isClassDeclaration(node.parent) || ts.isClassExpression(node.parent)) ? node.parent.name?.text : undefined;
    return cls ? `${cls}.${node.name.text}` : node.name.text;
  }
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? '(class)'}.constructor`;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
  if (p && ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return '(anonymous)';
}

/** The JSDoc / leading comments of the statement that holds the function (the declaration, or the `const`). */
function docOf(node, sf) {
  let holder = node;
  while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isBlock(holder.parent) && !ts.isClassDeclaration(holder.parent) && !ts.isModuleBlock(holder.parent)) {
    if (ts.isCallExpression(holder.parent) || ts.isObjectLiteralExpression(holder.parent)) break;
    holder = holder.parent;
  }
  const text = sf.getFullText();
  const ranges = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return ranges.map((r) => text.slice(r.pos, r.end)).join('\n');
}

function longFunctions(o) {
  const rows = [];
  for (const file of tsFiles(path.join(ROOT, o.dir))) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body && ts.isBlock(node.body)) {
        const start = sf.getLineAndCharacterOfPosition(node.body.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.body.getEnd()).line;
        const lines = end - start + 1;
        if (lines > o.max) {
          const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          const doc = docOf(node, sf);
          rows.push({ file: path.relative(ROOT, file), line, name: nameOf(node), lines, reason: REASON.test(doc) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return rows.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv);
  const all = longFunctions(o);
  const rows = o.unexplained ? all.filter((r) => !r.reason) : all;
  if (o.json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  for (const r of rows) console.log(`${String(r.lines).padStart(4)}  ${r.reason ? 'reason ' : 'NO WHY '} ${r.file}:${r.line}  ${r.name}`);
  const unexplained = all.filter((r) => !r.reason).length;
  const longest = all[0];
  console.log(
    `${all.length} functions over ${o.max} lines in ${o.dir}/ (${unexplained} without a reason in their comment)` +
      (longest ? `; longest: ${longest.name} (${longest.file}:${longest.line}), ${longest.lines} lines` : ''),
  );
  return 0;
}

if (require.main === module) {
  try {
    process.exit(main());
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}

module.exports = { longFunctions };
