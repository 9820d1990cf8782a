// scripts/prune-install.cjs (run by postinstall) removes only what Node never loads: onnxruntime-node's binaries for
// other platforms and architectures, @tensorflow/* source maps and @tensorflow/tfjs's browser bundles; the host's
// binaries, every package's main file, wasm files and linked stand-ins stay. On a fake tree, then on the real one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../lib/util/paths';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prune, pruneList } = require('../scripts/prune-install.cjs') as {
  prune: (root: string, o?: { dryRun?: boolean; platform?: string; arch?: string }) => { total: number; byWhy: Map<string, number> };
  pruneList: (nm: string, platform?: string, arch?: string) => { path: string; why: string }[];
};

function touch(root: string, rel: string, bytes = 10): void {
  const f = path.join(root, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, Buffer.alloc(bytes));
}

test('prune-install on a fake tree: other platforms, maps and browser bundles go; the host binary, mains, wasm and stand-ins stay', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-prune-'));
  try {
    const nm = 'node_modules';
    const keep = [
      `${nm}/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node`,
      `${nm}/@tensorflow/tfjs/dist/tf.node.js`, `${nm}/@tensorflow/tfjs/dist/index.js`,
      `${nm}/@tensorflow/tfjs-core/dist/index.js`, `${nm}/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm`,
      `${nm}/other/dist/index.js.map`, // only @tensorflow's maps are removed
      'stubs/tfjs-node/index.js.map',
      `${nm}/webgpu/dist/linux-x64/dawn.node`, `${nm}/webgpu/dist/index.js`,
    ];
    const gone = [
      `${nm}/onnxruntime-node/bin/napi-v6/darwin/arm64/onnxruntime_binding.node`, `${nm}/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime_binding.node`,
      `${nm}/onnxruntime-node/bin/napi-v6/linux/arm64/onnxruntime_binding.node`,
      `${nm}/@tensorflow/tfjs/dist/tf.node.js.map`, `${nm}/@tensorflow/tfjs-core/dist/index.js.map`,
      `${nm}/@tensorflow/tfjs/dist/tf.min.js`, `${nm}/@tensorflow/tfjs/dist/tf.es2017.js`, `${nm}/@tensorflow/tfjs/dist/tf.fesm.min.js.html`,
      `${nm}/@tensorflow/tfjs/dist/tf.js`, `${nm}/@tensorflow/tfjs/dist/miniprogram/tf-core.js`,
      `${nm}/webgpu/dist/darwin-universal/dawn.node`, `${nm}/webgpu/dist/linux-arm64/dawn.node`, `${nm}/webgpu/dist/win32-x64/dawn.node`,
    ];
    for (const f of [...keep, ...gone]) touch(root, f);
    // a linked stand-in inside @tensorflow is not entered
    fs.symlinkSync(path.join(root, 'stubs', 'tfjs-node'), path.join(root, nm, '@tensorflow', 'tfjs-node'));
    const dry = prune(root, { dryRun: true, platform: 'linux', arch: 'x64' });
    assert.ok(dry.total > 0);
    for (const f of gone) assert.ok(fs.existsSync(path.join(root, f)), `--dry-run removed ${f}`);
    const r = prune(root, { platform: 'linux', arch: 'x64' });
    assert.is(r.total, dry.total);
    for (const f of gone) assert.not.ok(fs.existsSync(path.join(root, f)), `${f} stayed`);
    for (const f of keep) assert.ok(fs.existsSync(path.join(root, f)), `${f} was removed`);
    assert.is(prune(root, { platform: 'linux', arch: 'x64' }).total, 0, 'a second run removes nothing');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the installed tree: nothing left to prune, the host onnxruntime binary and tfjs main are there, one tfjs', () => {
  const nm = path.join(repoRoot(), 'node_modules');
  assert.equal(pruneList(nm).map((x) => x.path), []);
  const host = path.join(nm, 'onnxruntime-node', 'bin', 'napi-v6', process.platform, process.arch);
  assert.ok(fs.existsSync(host) && fs.readdirSync(host).some((f) => f.endsWith('.node')), host);
  // danfojs-node's @tensorflow/tfjs-node is the project's own tfjs
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  assert.is(require(require.resolve('@tensorflow/tfjs-node', { paths: [path.join(nm, 'danfojs-node')] })), require('@tensorflow/tfjs'));
  assert.throws(() => require('onnxruntime-web'), /not installed in the EO Workbench/);
});

test.run();
