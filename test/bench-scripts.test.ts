import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';

// The bench scripts share one argument parser (bench/lib/args.cjs) and one header (bench/lib/header.cjs). Every
// script answers --help (listing its declared flags) and refuses an unknown flag and a bad number, naming the flag,
// before it loads the library, a model or data. The benches themselves are not run here (they are slow).

const ROOT = path.resolve(__dirname, '..');
const BENCH = path.join(ROOT, 'bench');
const SCRIPTS = fs.readdirSync(BENCH).filter((f) => f.endsWith('.cjs')).sort();
const { parseBenchArgs, helpText } = require('../bench/lib/args.cjs');
const { benchHeader, printHeader } = require('../bench/lib/header.cjs');

interface Run { status: number | null; stdout: string; stderr: string }
interface Declared { script: string; measures: string; flags: Record<string, { type: string; default: unknown; min: number | null; above: number | null }> }

// A preload that records, at exit, every module file the process loaded (to check that --help stays light).
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bench-scripts-'));
const PRELOAD = path.join(TMP, 'record-modules.cjs');
fs.writeFileSync(PRELOAD, `process.on('exit', () => { if (process.env.EO_TEST_MODULES_FILE) require('node:fs').writeFileSync(process.env.EO_TEST_MODULES_FILE, JSON.stringify(Object.keys(require.cache))); });\n`);

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH, script), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** `fn` over every script, 4 at a time. */
async function eachScript<T>(fn: (script: string) => Promise<T>): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const queue = [...SCRIPTS];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) out.set(s, await fn(s));
  }));
  return out;
}

let declared: Map<string, Declared>;
async function declarations(): Promise<Map<string, Declared>> {
  if (!declared) {
    const runs = await eachScript((s) => run(s, [], { EO_BENCH_FLAGS_JSON: '1' }));
    declared = new Map([...runs].map(([s, r]) => {
      assert.is(r.status, 0, `${s}: flags not readable: ${r.stderr}`);
      return [s, JSON.parse(r.stdout.trim().split('\n').pop()!) as Declared];
    }));
  }
  return declared;
}

test('there are bench scripts, and each declares what it measures', async () => {
  assert.ok(SCRIPTS.length >= 18, SCRIPTS.join(' '));
  for (const [s, d] of await declarations()) {
    assert.is(d.script, `bench/${s}`);
    assert.ok(d.measures.length > 20, `${s}: measures "${d.measures}"`);
  }
});

test('every bench script answers --help with exit 0, its flags listed, before loading the library or any heavy package', async () => {
  const decl = await declarations();
  const runs = await eachScript(async (s) => {
    const modulesFile = path.join(TMP, `${s}.modules.json`);
    const r = await run(s, ['--help'], { NODE_OPTIONS: `--require ${PRELOAD}`, EO_TEST_MODULES_FILE: modulesFile });
    return { ...r, modules: JSON.parse(fs.readFileSync(modulesFile, 'utf8')) as string[] };
  });
  for (const [s, r] of runs) {
    assert.is(r.status, 0, `${s} --help: exit ${r.status}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(`Usage: node bench/${s} [flags]`), `${s}: ${r.stdout.slice(0, 200)}`);
    const flags = Object.keys(decl.get(s)!.flags);
    for (const f of flags) assert.match(r.stdout, new RegExp(`^  --${f}\\b`, 'm'), `${s} --help does not list --${f}`);
    assert.match(r.stdout, /^ {2}--help\b/m);
    // --help prints the help only: no header, no measurement
    assert.not.match(r.stdout, /^# machine:/m, `${s} --help printed the header`);
    const heavy = r.modules.filter((m) => /node_modules/.test(m) || (m.includes(`${path.sep}dist${path.sep}`) && !m.endsWith(path.join('dist', 'lib', 'errors.js'))));
    assert.is(heavy.length, 0, `${s} --help loaded ${heavy.length} library or package modules, e.g. ${heavy.slice(0, 5).map((m) => path.relative(ROOT, m)).join(', ')}`);
  }
});

test('an unknown flag exits 2 with the flag named', async () => {
  const runs = await eachScript((s) => run(s, ['--no-such-flag']));
  for (const [s, r] of runs) {
    assert.is(r.status, 2, `${s}: exit ${r.status}; ${r.stderr}`);
    assert.match(r.stderr, /INVALID_ARGUMENT/, s);
    assert.match(r.stderr, /unknown flag --no-such-flag/, `${s}: ${r.stderr}`);
    assert.is(r.stdout, '', `${s} printed before refusing: ${r.stdout}`);
  }
});

test('a non-numeric, empty or out-of-range number exits 2 with the flag named', async () => {
  const decl = await declarations();
  let numeric = 0;
  const runs = await eachScript(async (s) => {
    const entry = Object.entries(decl.get(s)!.flags).find(([, f]) => ['int', 'number', 'int-list'].includes(f.type));
    if (!entry) return null;
    const [name, f] = entry;
    const low = f.min ?? f.above;
    return {
      name,
      bad: await run(s, [`--${name}`, 'abc']),
      empty: await run(s, [`--${name}=`]),
      range: low === null ? null : await run(s, [`--${name}`, String(low - 1)]),
    };
  });
  for (const [s, r] of runs) {
    if (!r) continue;
    numeric++;
    for (const [kind, x] of [['abc', r.bad], ['empty', r.empty], ['below range', r.range]] as const) {
      if (!x) continue;
      assert.is(x.status, 2, `${s} --${r.name} ${kind}: exit ${x.status}; ${x.stderr}`);
      assert.ok(x.stderr.includes(`--${r.name}`), `${s} --${r.name} ${kind}: ${x.stderr}`);
    }
  }
  assert.ok(numeric >= 15, `only ${numeric} scripts have a numeric flag`);
});

test('no bench file parses process.argv itself or copies library code; every script prints the shared header', () => {
  const files = [...SCRIPTS.map((f) => path.join(BENCH, f)), ...fs.readdirSync(path.join(BENCH, 'lib')).filter((f) => f.endsWith('.cjs')).map((f) => path.join(BENCH, 'lib', f))];
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    const src = fs.readFileSync(file, 'utf8');
    if (rel !== path.join('bench', 'lib', 'args.cjs')) {
      assert.not.match(src, /process\.argv\s*(\.|\[)/, `${rel} reads process.argv`);
      assert.not.match(src, /\bargs\.(indexOf|includes)\(\s*['`]--/, `${rel} looks flags up by hand`);
    }
    assert.not.ok(src.includes('0x6d2b79f5'), `${rel} copies mulberry32 (use the library's)`);
    if (!rel.startsWith(path.join('bench', 'lib'))) {
      assert.match(src, /require\('\.\/lib\/args\.cjs'\)/, `${rel} does not use bench/lib/args.cjs`);
      assert.match(src, /\bprintHeader\(args/, `${rel} does not print the shared header`);
      // the arguments are parsed before the library is loaded (so --help and errors answer at once)
      const parse = src.indexOf('benchArgs({');
      const lib = src.search(/require\('\.\.\/dist\/lib/);
      assert.ok(parse > 0 && (lib < 0 || parse < lib), `${rel}: benchArgs must come before require('../dist/lib…')`);
    }
  }
});

const SPEC = {
  script: '/x/bench/demo.cjs',
  measures: 'a demo of the parser',
  flags: {
    sample: { type: 'boolean', help: 'sample' },
    queries: { type: 'int', default: 300, min: 1, help: 'queries' },
    alpha: { type: 'number', default: null, min: 0, max: 1, help: 'alpha' },
    rate: { type: 'number', default: 50, above: 0, help: 'rate' },
    levels: { type: 'int-list', default: [1, 4], min: 1, help: 'levels' },
    modes: { type: 'list', default: ['old', 'new'], choices: ['old', 'new'], help: 'modes' },
    'encoder-spec': { type: 'json', default: null, help: 'spec' },
    'nnssc-epochs': { type: 'int', default: 47, help: 'epochs' },
    soak: { type: 'int', default: null, min: 1, optionalValue: true, help: 'soak' },
    out: { type: 'string', default: null, defaultText: 'bench/out/demo.json', help: 'out' },
  },
};

test('parseBenchArgs: typed values and defaults', () => {
  const d = parseBenchArgs(SPEC, []);
  assert.equal({ ...d }, { sample: false, queries: 300, alpha: null, rate: 50, levels: [1, 4], modes: ['old', 'new'], encoderSpec: null, nnsscEpochs: 47, soak: null, out: null });
  const a = parseBenchArgs(SPEC, ['--sample', '--queries', '12', '--alpha=0.25', '--levels', '2,8', '--modes', 'new', '--encoder-spec', '{"kind":"use-lite"}', '--nnssc-epochs', '3', '--soak', '--out', 'a.json']);
  assert.equal({ ...a }, { sample: true, queries: 12, alpha: 0.25, rate: 50, levels: [2, 8], modes: ['new'], encoderSpec: { kind: 'use-lite' }, nnsscEpochs: 3, soak: true, out: 'a.json' });
  assert.equal(a.argv.slice(0, 3), ['--sample', '--queries', '12']);
  assert.ok(a.given.has('alpha') && !a.given.has('rate'));
  assert.is(parseBenchArgs(SPEC, ['--soak', '600']).soak, 600);
  assert.is(parseBenchArgs(SPEC, ['--alpha', '-0']).alpha, -0);
  assert.is(parseBenchArgs(SPEC, ['--help']).help, true);
});

test('parseBenchArgs: refusals name the flag and carry INVALID_ARGUMENT', () => {
  const refuse = (argv: string[], pattern: RegExp) => {
    try {
      parseBenchArgs(SPEC, argv);
    } catch (e) {
      assert.is((e as { code?: string }).code, 'INVALID_ARGUMENT', String(e));
      assert.match((e as Error).message, pattern);
      assert.match((e as Error).message, /^bench\/demo\.cjs: /);
      return;
    }
    assert.unreachable(`${argv.join(' ')} was accepted`);
  };
  refuse(['--queries', 'abc'], /--queries: expected an integer, got "abc"/);
  refuse(['--queries', '1.5'], /--queries: expected an integer/);
  refuse(['--queries', '0x10'], /--queries: expected an integer/);
  refuse(['--queries', '0'], /--queries: must be ≥ 1/);
  refuse(['--queries='], /--queries: empty value/);
  refuse(['--queries'], /--queries needs a value/);
  refuse(['--queries', '--sample'], /--queries needs a value/);
  refuse(['--alpha', '1.5'], /--alpha: must be ≤ 1/);
  refuse(['--alpha', 'NaN'], /--alpha: expected a number/);
  refuse(['--alpha', '1e999'], /--alpha: expected a finite number/);
  refuse(['--rate', '0'], /--rate: must be > 0/);
  refuse(['--levels', '1,,4'], /--levels: empty item/);
  refuse(['--levels', '1,x'], /--levels: expected an integer, got "x"/);
  refuse(['--levels', '0,4'], /--levels: must be ≥ 1/);
  refuse(['--modes', 'old,fast'], /--modes: old, new; got "fast"/);
  refuse(['--encoder-spec', '{kind'], /--encoder-spec: not JSON/);
  refuse(['--soak', 'abc'], /--soak: expected an integer/);
  refuse(['--bogus'], /unknown flag --bogus/);
  refuse(['--sample=yes'], /--sample takes no value/);
  refuse(['--queries', '3', '--queries', '4'], /--queries given twice/);
  refuse(['stray'], /unexpected argument "stray"/);
});

test('parseBenchArgs: a flag that would shadow a part of the result is refused at declaration', () => {
  for (const name of ['help', 'argv', 'given', 'spec']) assert.throws(() => parseBenchArgs({ ...SPEC, flags: { [name]: { type: 'boolean', help: 'x' } } }, []), /reserved/);
  assert.throws(() => parseBenchArgs({ ...SPEC, flags: { n: { type: 'integer', help: 'x' } } }, []), /unknown type/);
});

test('helpText: every flag with its placeholder, range and default', () => {
  const h = helpText(SPEC);
  assert.ok(h.startsWith('Usage: node bench/demo.cjs [flags]\n\na demo of the parser\n'), h);
  assert.match(h, /^ {2}--queries N +queries \(integer ≥ 1; default 300\)$/m);
  assert.match(h, /^ {2}--alpha X +alpha \(number ≥ 0, ≤ 1; default none\)$/m);
  assert.match(h, /^ {2}--rate X +rate \(number > 0; default 50\)$/m);
  assert.match(h, /^ {2}--levels N,M +levels \(integers ≥ 1; default 1,4\)$/m);
  assert.match(h, /^ {2}--modes A,B +modes \(list old\|new; default old,new\)$/m);
  assert.match(h, /^ {2}--sample +sample \(default off\)$/m);
  assert.match(h, /^ {2}--soak \[N\] +soak/m);
  assert.match(h, /^ {2}--out TEXT +out \(default bench\/out\/demo\.json\)$/m);
});

test('the header: what is measured, machine, commit, settings — printed the same way by every script', () => {
  const args = parseBenchArgs(SPEC, ['--queries', '7', '--modes', 'new']);
  const h = benchHeader(args, { '--resolved': 'x' });
  assert.is(h.script, 'bench/demo.cjs');
  assert.is(h.machine.cores, os.cpus().length);
  assert.is(h.machine.node, process.version);
  assert.is(h.machine.loadAverage.length, 3);
  assert.ok(h.commit === null || /^[0-9a-f]{7,}(-dirty)?$/.test(h.commit) || /-g[0-9a-f]+/.test(h.commit), String(h.commit));
  assert.is(h.settings['--queries'], 7);
  assert.equal(h.settings['--modes'], ['new']);
  assert.is(h.settings['--resolved'], 'x');
  let text = '';
  printHeader(args, { stream: { write: (s: string) => (text += s) } });
  const lines = text.trimEnd().split('\n');
  assert.is(lines.length, 4);
  assert.is(lines[0], '# bench/demo.cjs: a demo of the parser');
  assert.match(lines[1], new RegExp(`^# machine: ${os.cpus().length} cores.*load average [\\d.]+ [\\d.]+ [\\d.]+, node ${process.version.replace(/\./g, '\\.')}`));
  assert.match(lines[2], /^# commit: /);
  assert.match(lines[3], /^# settings: --sample off, --queries 7, --alpha default, .*--modes new,/);
});

test.after(() => fs.rmSync(TMP, { recursive: true, force: true }));

test.run();
