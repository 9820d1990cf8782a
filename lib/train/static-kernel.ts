/**
 * The static encoder's batch products on onnxruntime's MLAS kernels (`StaticTrainConfig.kernel: 'mlas'`): one
 * Matryoshka prefix of `staticBatchGradient` (lib/train/static.ts) as three matrix products instead of its loops.
 */
import { hostMatMul, type HostMatMul } from '../tensor/wasm-matmul';

/** What multiplies a batch's queries with its documents (`StaticTrainConfig.kernel`). */
export const STATIC_KERNELS = ['js', 'mlas'] as const;
export type StaticKernel = (typeof STATIC_KERNELS)[number];

/** The first `m` of every `D` values of `rows` rows, packed into a new [rows, m] array. */
function packPrefix(src: Float32Array, rows: number, D: number, m: number): Float32Array {
  const out = new Float32Array(rows * m);
  for (let r = 0; r < rows; r++) out.set(src.subarray(r * D, r * D + m), r * m);
  return out;
}

/**
 * One Matryoshka prefix of `staticBatchGradient` as three matrix products (`kernel: 'mlas'`): the cosines Uq·Udᵀ,
 * then with P = dL/dcos, the gradients at the normalised prefixes P·Ud and Pᵀ·Uq written into `guq` / `gud` (zeroed
 * by the caller). The loss, accuracy and gradient are those of the loop it replaces, with float32 sums.
 */
export function prefixGradientMatMul(
  matMul: HostMatMul, uq: Float32Array, ud: Float32Array, guq: Float32Array, gud: Float32Array, n: number, nd: number, D: number, m: number, temperature: number, prefixes: number,
): { loss: number; correct: number } {
  const q = packPrefix(uq, n, D, m);
  const d = packPrefix(ud, nd, D, m);
  const cos = matMul(q, [n, m], d, [nd, m], false, true);
  const p = new Float32Array(n * nd);
  const e = new Float64Array(nd);
  let loss = 0;
  let correct = 0;
  for (let r = 0; r < n; r++) {
    const o = r * nd;
    let max = -Infinity;
    for (let k = 0; k < nd; k++) if (cos[o + k] / temperature > max) max = cos[o + k] / temperature;
    let z = 0;
    for (let k = 0; k < nd; k++) {
      e[k] = Math.exp(cos[o + k] / temperature - max);
      z += e[k];
    }
    loss += -(cos[o + r] / temperature - max - Math.log(z)) / n / prefixes;
    if (m === D) {
      let best = 0;
      for (let k = 1; k < nd; k++) if (cos[o + k] > cos[o + best]) best = k;
      if (best === r) correct++;
    }
    // dL/dcos_k = (p_k − [k = r]) / (n · |dims| · τ)
    for (let k = 0; k < nd; k++) p[o + k] = (e[k] / z - (k === r ? 1 : 0)) / n / prefixes / temperature;
  }
  const gq = matMul(p, [n, nd], d, [nd, m], false, false);
  const gd = matMul(p, [n, nd], q, [n, m], true, false);
  for (let r = 0; r < n; r++) guq.set(gq.subarray(r * m, (r + 1) * m), r * D);
  for (let k = 0; k < nd; k++) gud.set(gd.subarray(k * m, (k + 1) * m), k * D);
  return { loss, correct };
}

/** The batch product a config asks for: MLAS's (one thread) when `mlas` and onnxruntime-node loads, else the loops. */
export function staticKernel(asked: StaticKernel | undefined): { matMul: HostMatMul | null; kernel: StaticKernel; kernelNote?: string } {
  if ((asked ?? 'js') === 'js') return { matMul: null, kernel: 'js' };
  const mm = hostMatMul(1);
  if (typeof mm === 'string') return { matMul: null, kernel: 'js', kernelNote: `kernel mlas asked, js used: ${mm}` };
  return { matMul: mm, kernel: 'mlas' };
}
