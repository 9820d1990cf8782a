// The one argument parser of the bench scripts: each script declares its flags (type, default, range, help) and gets
// back typed values, a `--help` text written from the declaration, and a clear refusal of anything else. Loads only
// Node built-ins and the library's error class, so that `--help` and a bad flag answer before any model or data loads.
'use strict';
const path = require('node:path');
const { EoError } = require('../../dist/lib/errors');

/**
 * A flag's declaration:
 *   type         'boolean' | 'int' | 'number' | 'string' | 'json' | 'list' | 'int-list' (lists: comma-separated)
 *   help         what it sets (one line)
 *   default      the value when the flag is absent (default: false for 'boolean', null otherwise; null means "the
 *                script decides", which `defaultText` then says)
 *   defaultText  the default as the help shows it, when `default` is null or computed (default: `default` itself)
 *   min, max     inclusive bounds of a number, or of every number of an 'int-list' (default: none)
 *   above        exclusive lower bound of a number (e.g. 0 for "positive"; default: none)
 *   choices      the allowed values of a 'string', or of every item of a 'list' (default: any)
 *   check        (value) => true | reason: a further check of the parsed value (default: none)
 *   optionalValue for a numeric flag that may also stand alone: alone (no value follows) it is `true` (default: false)
 *   placeholder  the value's name in the help (default: N, X, TEXT, JSON, A,B,… by type)
 */
const TYPES = new Set(['boolean', 'int', 'number', 'string', 'json', 'list', 'int-list']);
const RESERVED = new Set(['help', 'argv', 'given', 'spec']);
const INT = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** `nnssc-epochs` → `nnsscEpochs`: the key of a flag's value in the parsed result. */
function camel(name) {
  return name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
}

function fail(spec, message) {
  return new EoError('INVALID_ARGUMENT', `${scriptName(spec)}: ${message} (see --help)`);
}

/** `bench/<file>` (or `bench/<folder>/<file>`) of a spec's script, as a user runs it. */
function scriptName(spec) {
  const at = spec.script.lastIndexOf(`${path.sep}bench${path.sep}`);
  return at >= 0 ? `bench/${spec.script.slice(at + 7).split(path.sep).join('/')}` : `bench/${path.basename(spec.script)}`;
}

function checkSpec(spec) {
  if (!spec || typeof spec.script !== 'string' || typeof spec.measures !== 'string') throw new Error('benchArgs: spec needs script and measures');
  for (const [name, f] of Object.entries(spec.flags ?? {})) {
    if (!TYPES.has(f.type)) throw new Error(`benchArgs: --${name} has unknown type ${f.type}`);
    if (typeof f.help !== 'string' || !f.help) throw new Error(`benchArgs: --${name} has no help`);
    if (RESERVED.has(camel(name))) throw new Error(`benchArgs: --${name} is reserved (help, argv, given, spec: built in or parts of the result)`);
  }
}

/** One number of `--name` (already known non-empty), range-checked. */
function toNumber(spec, name, f, raw, integer) {
  if (!(integer ? INT : NUMBER).test(raw)) throw fail(spec, `--${name}: expected ${integer ? 'an integer' : 'a number'}, got "${raw}"`);
  const v = Number(raw);
  if (!Number.isFinite(v)) throw fail(spec, `--${name}: expected a finite number, got "${raw}"`);
  if (f.min !== undefined && v < f.min) throw fail(spec, `--${name}: must be ≥ ${f.min}, got ${raw}`);
  if (f.max !== undefined && v > f.max) throw fail(spec, `--${name}: must be ≤ ${f.max}, got ${raw}`);
  if (f.above !== undefined && !(v > f.above)) throw fail(spec, `--${name}: must be > ${f.above}, got ${raw}`);
  return v;
}

/** The typed value of `--name raw`. */
function convert(spec, name, f, raw) {
  if (raw === '') throw fail(spec, `--${name}: empty value`);
  const items = () => {
    const xs = raw.split(',');
    if (xs.some((x) => x === '')) throw fail(spec, `--${name}: empty item in "${raw}"`);
    return xs;
  };
  let v;
  if (f.type === 'int' || f.type === 'number') v = toNumber(spec, name, f, raw, f.type === 'int');
  else if (f.type === 'int-list') v = items().map((x) => toNumber(spec, name, f, x, true));
  else if (f.type === 'list') v = items();
  else if (f.type === 'json') {
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw fail(spec, `--${name}: not JSON (${e.message}): ${raw}`);
    }
  } else v = raw;
  if (f.choices) {
    for (const x of Array.isArray(v) ? v : [v]) if (!f.choices.includes(x)) throw fail(spec, `--${name}: ${f.choices.join(', ')}; got "${x}"`);
  }
  if (f.check) {
    const ok = f.check(v);
    if (ok !== true) throw fail(spec, `--${name}: ${ok}; got "${raw}"`);
  }
  return v;
}

/**
 * Parses `argv` (default: this process's arguments) by `spec` = { script, measures, flags, notes? }: returns the
 * values by camel-cased flag name (`--nnssc-epochs` → `nnsscEpochs`), plus `argv` (the arguments as given, to pass on
 * to a child process) and `given` (the flags present). Throws EoError INVALID_ARGUMENT naming the flag for an unknown
 * flag, a missing, empty, non-numeric or out-of-range value, a value given to a boolean flag, a flag given twice, or
 * a positional argument. `--help` is returned as `help: true` (benchArgs prints the text).
 */
function parseBenchArgs(spec, argv = process.argv.slice(2)) {
  checkSpec(spec);
  const flags = spec.flags ?? {};
  const out = {};
  for (const [name, f] of Object.entries(flags)) out[camel(name)] = f.type === 'boolean' ? f.default ?? false : f.default ?? null;
  const given = new Set();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      out.help = true;
      continue;
    }
    if (!a.startsWith('--')) throw fail(spec, `unexpected argument "${a}"`);
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    const f = Object.prototype.hasOwnProperty.call(flags, name) ? flags[name] : null;
    if (!f) throw fail(spec, `unknown flag --${name}`);
    if (given.has(name)) throw fail(spec, `--${name} given twice`);
    given.add(name);
    if (f.type === 'boolean') {
      if (eq > 0) throw fail(spec, `--${name} takes no value`);
      out[camel(name)] = true;
      continue;
    }
    let raw;
    if (eq > 0) raw = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else if (f.optionalValue) {
      out[camel(name)] = true;
      continue;
    } else throw fail(spec, `--${name} needs a value`);
    out[camel(name)] = convert(spec, name, f, raw);
  }
  Object.defineProperty(out, 'argv', { value: argv.slice(), enumerable: false });
  Object.defineProperty(out, 'given', { value: given, enumerable: false });
  Object.defineProperty(out, 'spec', { value: spec, enumerable: false });
  return out;
}

const PLACEHOLDER = { int: 'N', number: 'X', string: 'TEXT', json: 'JSON', list: 'A,B', 'int-list': 'N,M' };

/** The `--help` text of a spec: usage, what it measures, every flag with its type, range and default. */
function helpText(spec) {
  checkSpec(spec);
  const rows = [];
  for (const [name, f] of Object.entries(spec.flags ?? {})) {
    const ph = f.type === 'boolean' ? '' : ` ${f.optionalValue ? '[' : ''}${f.placeholder ?? PLACEHOLDER[f.type]}${f.optionalValue ? ']' : ''}`;
    const range = [];
    if (f.min !== undefined) range.push(`≥ ${f.min}`);
    if (f.above !== undefined) range.push(`> ${f.above}`);
    if (f.max !== undefined) range.push(`≤ ${f.max}`);
    if (f.choices) range.push(f.choices.join('|'));
    const kind = { int: 'integer', number: 'number', 'int-list': 'integers', list: 'list' }[f.type];
    const dflt = f.defaultText ?? (f.type === 'boolean' ? (f.default ? 'on' : 'off') : f.default === null || f.default === undefined ? 'none' : Array.isArray(f.default) ? f.default.join(',') : String(f.default));
    const detail = [kind && range.length ? `${kind} ${range.join(', ')}` : kind ?? (range.length ? range.join(', ') : null), `default ${dflt}`].filter(Boolean).join('; ');
    rows.push([`--${name}${ph}`, `${f.help} (${detail})`]);
  }
  rows.push(['--help', 'this text']);
  const w = Math.max(...rows.map(([l]) => l.length)) + 2;
  const lines = [`Usage: node ${scriptName(spec)} [flags]`, '', spec.measures, '', 'Flags:', ...rows.map(([l, r]) => `  ${l.padEnd(w)}${r}`)];
  if (spec.notes) lines.push('', ...spec.notes.trim().split('\n'));
  return lines.join('\n') + '\n';
}

/**
 * `parseBenchArgs` for a script's own process: `--help` prints the help and exits 0; a bad argument prints the error
 * (its code and message) on stderr and exits 2. With $EO_BENCH_FLAGS_JSON=1 it prints the declared flags as JSON and
 * exits 0 (how `run-all.cjs` and the tests read a script's flags without running it).
 */
function benchArgs(spec, argv = process.argv.slice(2)) {
  checkSpec(spec);
  if (process.env.EO_BENCH_FLAGS_JSON === '1') {
    const flags = Object.fromEntries(Object.entries(spec.flags ?? {}).map(([n, f]) => [n, { type: f.type, default: f.default ?? null, min: f.min ?? null, max: f.max ?? null, above: f.above ?? null, choices: f.choices ?? null }]));
    process.stdout.write(JSON.stringify({ script: scriptName(spec), measures: spec.measures, flags }) + '\n');
    process.exit(0);
  }
  let out;
  try {
    out = parseBenchArgs(spec, argv);
  } catch (e) {
    if (!(e instanceof EoError)) throw e;
    process.stderr.write(`${e.code}: ${e.message}\n`);
    process.exit(2);
  }
  if (out.help) {
    process.stdout.write(helpText(spec));
    process.exit(0);
  }
  return out;
}

module.exports = { benchArgs, parseBenchArgs, helpText, scriptName };
