// Every command's --help lists all the flags its parser takes, one line each with what it does (and the default when
// there is one), and no other: help and parser come from one table (lib/cli/flags.ts). The flags a command's code
// reads are all in its table, and every flag of the table is read. docs/cli.md carries the same help text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliFlagsMarkdown, COMMAND_FLAGS, parseArgsOptions, type FlagSpec } from '../lib/cli/flags';
import { repoRoot } from '../lib/util/paths';

const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
const eo = (args: string[]) => spawnSync(process.execPath, [EO, ...args], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });

/** The flags a source file reads from its parsed values (`values.k`, `values['no-repair']`). */
function flagsRead(file: string): Set<string> {
  const src = fs.readFileSync(path.join(repoRoot(), 'lib', 'cli', file), 'utf8');
  const out = new Set<string>();
  for (const m of src.matchAll(/values(?:\.([a-zA-Z]+)\b|\['([a-z-]+)'\])/g)) out.add(m[1] ?? m[2]);
  return out;
}

test('eo <command> --help: every flag of the parser on a line of its own, with its help and default; nothing else', () => {
  for (const [name, { flags }] of Object.entries(COMMAND_FLAGS)) {
    const r = eo([...name.split(' '), '--help']);
    assert.is(r.status, 0, `${name}: ${r.stderr}`);
    const listed = [...r.stdout.matchAll(/^ {2}(?:-[a-z], )?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]);
    assert.equal([...listed].sort(), Object.keys(parseArgsOptions(flags)).sort(), `${name}: help and parser differ`);
    for (const f of flags) {
      const line = new RegExp(`^ {2}(?:-[a-z], )?--${f.name}\\b[^\\n]*(?:\\n {3,}[^\\n]*)?`, 'm').exec(r.stdout)?.[0] ?? '';
      assert.ok(line.includes(f.help), `${name} --${f.name}: no description`);
      if (f.default !== undefined) assert.ok(line.includes(`(default ${f.default})`), `${name} --${f.name}: no default`);
    }
  }
});

test('the flags each command reads are in its table, and each flag of the table is read (help, encoder: read before parsing)', () => {
  const names = (specs: readonly FlagSpec[]) => new Set(specs.map((f) => f.name));
  const early = new Set(['help', 'encoder']);
  const files: [string, readonly FlagSpec[]][] = [
    ['eo.ts', [...COMMAND_FLAGS.search.flags, ...COMMAND_FLAGS.eval.flags, ...COMMAND_FLAGS['bench build'].flags]],
    ['serve.ts', COMMAND_FLAGS.serve.flags], ['cache.ts', COMMAND_FLAGS.cache.flags], ['export.ts', COMMAND_FLAGS.export.flags],
    ['llm.ts', COMMAND_FLAGS.llm.flags], ['bench.ts', COMMAND_FLAGS.bench.flags],
  ];
  for (const [file, specs] of files) {
    const read = flagsRead(file);
    const table = names(specs);
    for (const f of read) assert.ok(table.has(f), `${file} reads --${f}, which its help does not list`);
    for (const f of table) if (!early.has(f)) assert.ok(read.has(f), `${file}: --${f} is listed but never read`);
  }
});

test('a flag of another command is refused by name (exit 2): eo search takes only its own flags', () => {
  const r = eo(['search', 'sea ice', '--seed', '3', '--sample']);
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /\[INVALID_ARGUMENT\] Unknown option '--seed'/);
  assert.is(r.stdout, '');
});

test('docs/cli.md carries each command\'s help as the command prints it (node scripts/docs-cli.cjs)', () => {
  const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'cli.md'), 'utf8');
  assert.ok(doc.includes(cliFlagsMarkdown()), 'docs/cli.md is out of date: run npm run build && node scripts/docs-cli.cjs');
});

test.run();
