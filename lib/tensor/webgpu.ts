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

export type WebgpuCheck =
  | { ok: true; adapter: { vendor: string; architecture: string; device: string; description: string }; vulkanLoader: string; message: string }
  | { ok: false; missing: WebgpuMissing; message: string };

/** The minimal shape of Dawn's GPU object that the check uses. */
interface GpuLike {
  requestAdapter(): Promise<{ info?: Record<string, unknown>; requestAdapterInfo?: () => Promise<Record<string, unknown>> } | null>;
}

export interface WebgpuCheckOptions {
  /** Resolves a package name to its entry file, or throws (default `require.resolve`). */
  resolve?: (name: string) => string;
  /** Folders searched for `libvulkan.so.1` (default: $LD_LIBRARY_PATH, then the usual Debian/Ubuntu library folders). */
  libraryDirs?: readonly string[];
  /** Creates Dawn's GPU object (default: the `webgpu` package's `create(['backend=vulkan'])`). */
  createGpu?: () => GpuLike;
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
  if (loader === null)
    return { ok: false, missing: 'NO_VULKAN', message: "no Vulkan loader (libvulkan.so.1) in $LD_LIBRARY_PATH or the system's library folders: install Debian's `libvulkan1` (without root: `dpkg -x` the .deb and add its usr/lib/<arch> to LD_LIBRARY_PATH); a GPU's driver also needs its ICD file (e.g. VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json)" };
  let adapter: Awaited<ReturnType<GpuLike['requestAdapter']>>;
  try {
    const gpu = opts.createGpu ? opts.createGpu() : defaultGpu(resolve);
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { ok: false, missing: 'ADAPTER_ERROR', message: `Dawn failed while looking for an adapter (${loader}): ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!adapter)
    return { ok: false, missing: 'NO_ADAPTER', message: `Dawn found no WebGPU adapter through ${loader}: no GPU with a Vulkan driver here, or its ICD file not found (VK_DRIVER_FILES names it; a CPU driver such as Debian 12's lavapipe lacks features Dawn requires); training and scoring run on the CPU path` };
  const info = adapter.info ?? (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : {});
  const a = { vendor: text(info.vendor), architecture: text(info.architecture), device: text(info.device), description: text(info.description) };
  return { ok: true, adapter: a, vulkanLoader: loader, message: `WebGPU adapter: vendor ${a.vendor || '?'}, device ${a.device || a.description || '?'} (Vulkan loader ${loader})` };
}

/** Dawn's GPU object from the installed `webgpu` package, with its globals set as the tfjs backend expects them. */
function defaultGpu(resolve: (name: string) => string): GpuLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const dawn = require(resolve('webgpu')) as { create(flags: string[]): GpuLike; globals: Record<string, unknown> };
  Object.assign(globalThis, dawn.globals);
  return dawn.create(['backend=vulkan']);
}
