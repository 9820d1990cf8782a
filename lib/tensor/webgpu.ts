/**
 * Whether TensorFlow.js can run on WebGPU here (issue 45, step 1): Dawn's Node binding (the `webgpu` package) with
 * `@tensorflow/tfjs-backend-webgpu`, over a Vulkan driver (`../shared/notes/gpu-facts.md`). `checkWebgpu` names the
 * adapter, or says exactly which link is missing: the packages (an opt-in install, `npm run install-webgpu`), the
 * Vulkan loader (`libvulkan.so.1`, Debian's `libvulkan1`), or an adapter (no GPU, or a driver Dawn cannot use, such as
 * Debian 12's lavapipe). Nothing here is loaded by the CPU path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The opt-in install of the WebGPU packages (package.json `install-webgpu`). */
export const WEBGPU_INSTALL_COMMAND = 'npm run install-webgpu';

/** Why there is no WebGPU backend, when there is none. */
export type WebgpuMissing = 'NO_PACKAGE' | 'NO_TFJS_BACKEND' | 'NO_VULKAN' | 'NO_ADAPTER' | 'ADAPTER_ERROR';

export interface WebgpuAdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /**
   * True for a CPU implementation of Vulkan (Chromium's SwiftShader, Mesa's lavapipe/llvmpipe): the WebGPU path then
   * runs, slowly, on the CPU. Good for testing the path (`test/webgpu-parity.test.ts`), not for speed.
   */
  software: boolean;
}

export type WebgpuCheck =
  | { ok: true; adapter: WebgpuAdapterInfo; vulkanLoader: string; message: string }
  | { ok: false; missing: WebgpuMissing; message: string };

/** The minimal shape of Dawn's GPU object that the check uses. */
export interface GpuLike {
  requestAdapter(): Promise<{ info?: Record<string, unknown>; requestAdapterInfo?: () => Promise<Record<string, unknown>> } | null>;
}

export interface WebgpuCheckOptions {
  /** Resolves a package name to its entry file, or throws (default `require.resolve`). */
  resolve?: (name: string) => string;
  /** Folders searched for `libvulkan.so.1` (default: $LD_LIBRARY_PATH, then the usual Debian/Ubuntu library folders). */
  libraryDirs?: readonly string[];
  /** Creates Dawn's GPU object (default: the `webgpu` package's `create(['backend=vulkan'])`, see `startDawn`). */
  createGpu?: () => GpuLike;
  /** Where Chromium's SwiftShader Vulkan driver is looked for, for the hint when there is no adapter. Default `SWIFTSHADER_ICD`. */
  swiftshaderIcd?: string;
}

/**
 * Chromium's CPU Vulkan driver as Debian's `chromium` package installs it (the project's scripts install chromium for
 * the PNGs). With `VK_DRIVER_FILES` naming it and its folder on `LD_LIBRARY_PATH` (Chromium's own `libvulkan.so.1`
 * is there too), Dawn finds a SwiftShader adapter: the WebGPU path runs on a machine without a GPU, slowly, so that
 * it can be tested there. Debian 12's lavapipe cannot serve (it lacks features Dawn requires).
 */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The environment that makes Dawn use SwiftShader (see `SWIFTSHADER_ICD`), as a shell prefix. */
export function swiftshaderEnv(icd = SWIFTSHADER_ICD): string {
  return `VK_DRIVER_FILES=${icd} LD_LIBRARY_PATH=${path.dirname(icd)}`;
}

/** A CPU implementation of Vulkan, by the adapter's names. */
export function isSoftwareAdapter(info: { vendor?: string; architecture?: string; device?: string; description?: string }): boolean {
  return /swiftshader|llvmpipe|lavapipe|softpipe/i.test([info.vendor, info.architecture, info.device, info.description].join(' '));
}

/** The library folders searched for the Vulkan loader: $LD_LIBRARY_PATH first, then the system's usual ones. */
export function defaultLibraryDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  return [...fromEnv, '/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib'];
}

/** Where `libvulkan.so.1` is, or null. */
export function findVulkanLoader(dirs: readonly string[] = defaultLibraryDirs()): string | null {
  for (const d of dirs) {
    const f = path.join(d, 'libvulkan.so.1');
    if (fs.existsSync(f)) return f;
  }
  return null;
}

const text = (x: unknown): string => (typeof x === 'string' ? x : '');

/** Check each link of the WebGPU path in order and name the first one missing, or the adapter found. */
export async function checkWebgpu(opts: WebgpuCheckOptions = {}): Promise<WebgpuCheck> {
  const resolve = opts.resolve ?? ((name: string) => require.resolve(name));
  const has = (name: string) => {
    try {
      resolve(name);
      return true;
    } catch {
      return false;
    }
  };
  if (!has('webgpu'))
    return { ok: false, missing: 'NO_PACKAGE', message: `the \`webgpu\` package (Dawn's Node binding) is not installed: it is an opt-in install, \`${WEBGPU_INSTALL_COMMAND}\`; training and scoring run on the CPU path` };
  if (!has('@tensorflow/tfjs-backend-webgpu'))
    return { ok: false, missing: 'NO_TFJS_BACKEND', message: `\`webgpu\` is installed but \`@tensorflow/tfjs-backend-webgpu\` is not: \`${WEBGPU_INSTALL_COMMAND}\` installs both` };
  const loader = findVulkanLoader(opts.libraryDirs ?? defaultLibraryDirs());
  const icd = opts.swiftshaderIcd ?? SWIFTSHADER_ICD;
  const software = fs.existsSync(icd) ? `; to test the path without a GPU, Chromium's SwiftShader serves as a CPU adapter (it brings its own loader): ${swiftshaderEnv(icd)}` : '';
  if (loader === null)
    return { ok: false, missing: 'NO_VULKAN', message: `no Vulkan loader (libvulkan.so.1) in $LD_LIBRARY_PATH or the system's library folders: install Debian's \`libvulkan1\` (without root: \`dpkg -x\` the .deb and add its usr/lib/<arch> to LD_LIBRARY_PATH); a GPU's driver also needs its ICD file (e.g. VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json)${software}` };
  let adapter: Awaited<ReturnType<GpuLike['requestAdapter']>>;
  try {
    const gpu = opts.createGpu ? opts.createGpu() : startDawn(resolve);
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { ok: false, missing: 'ADAPTER_ERROR', message: `Dawn failed while looking for an adapter (${loader}): ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!adapter)
    return { ok: false, missing: 'NO_ADAPTER', message: `Dawn found no WebGPU adapter through ${loader}: no GPU with a Vulkan driver here, or its ICD file not found (VK_DRIVER_FILES names it; a CPU driver such as Debian 12's lavapipe lacks features Dawn requires); training and scoring run on the CPU path${software}` };
  const info = adapter.info ?? (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : {});
  const names = { vendor: text(info.vendor), architecture: text(info.architecture), device: text(info.device), description: text(info.description) };
  const a: WebgpuAdapterInfo = { ...names, software: isSoftwareAdapter(names) };
  const what = a.software ? ' — a CPU implementation of Vulkan: the path runs, for tests, not for speed' : '';
  return { ok: true, adapter: a, vulkanLoader: loader, message: `WebGPU adapter: vendor ${a.vendor || '?'}, device ${a.device || a.description || '?'} (Vulkan loader ${loader})${what}` };
}

let dawnGpu: GpuLike | null = null;

/**
 * Dawn's GPU object from the installed `webgpu` package, once per process, with the globals that
 * `@tensorflow/tfjs-backend-webgpu` expects (`GPUBufferUsage` and the like, `navigator.gpu`; Node 20 has no
 * `navigator`, Node 21+ has one without `gpu`).
 */
export function startDawn(resolve: (name: string) => string = (name) => require.resolve(name)): GpuLike {
  if (dawnGpu) return dawnGpu;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const dawn = require(resolve('webgpu')) as { create(flags: string[]): GpuLike; globals: Record<string, unknown> };
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create(['backend=vulkan']);
  const g = globalThis as { navigator?: object };
  if (!g.navigator) g.navigator = {};
  Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true });
  return (dawnGpu = gpu);
}

