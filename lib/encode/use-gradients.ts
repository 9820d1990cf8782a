import { getTf } from '../tensor/backend';

type Tf = ReturnType<typeof getTf>;
type Tensor = ReturnType<Tf['tensor']>;
type GradConfig = NonNullable<ReturnType<Tf['getGradient']>>;

let registered = false;

function hasKernel(tf: Tf, name: string): boolean {
  return Boolean(tf.getKernel(name, tf.getBackend()));
}

/** Swap the last two axes (an explicit transpose, so matMul runs without transpose flags). */
function swapLast2(tf: Tf, t: Tensor): Tensor {
  const r = t.rank;
  const perm = Array.from({ length: r }, (_, i) => i);
  perm[r - 2] = r - 1;
  perm[r - 1] = r - 2;
  return tf.transpose(t, perm);
}

/**
 * Register the gradients USE-lite's graph needs for training and that TensorFlow.js lacks or runs slowly
 * (idempotent; affects every backend of this tfjs copy):
 * - `ScatterNd` (w.r.t. updates: gather the upstream gradient back) and `GatherNd` (w.r.t. params: scatter it) —
 *   tfjs has no gradient for either; the graph uses them to pack/unpack the non-padding tokens;
 * - `Conv2D` with a 1×1 filter, stride 1, NHWC — the graph's attention projections — as two matMuls, because the
 *   wasm backend has no `Conv2DBackpropFilter` kernel (other Conv2D go to tfjs' own gradient);
 * - `BatchMatMul` (every matMul) with explicit transposes instead of matMul's transpose flags, which the wasm
 *   backend runs 10–15× slower (measured: forward+backward for 64 titles ~45 s with flags, 5–8 s without);
 * - `GatherV2` (the embedding lookup) on backends without `UnsortedSegmentSum` (wasm): the gradient rows are summed
 *   in JavaScript; other backends use tfjs' own gradient.
 * Each replacement equals the original mathematically; test/finetune.test.ts checks a gradient against finite
 * differences.
 */
export function registerUseLiteGradients(): void {
  if (registered) return;
  const tf = getTf();
  const original = (name: string): GradConfig | undefined => tf.getGradient(name) ?? undefined;
  // the originals are taken before any override, for the cases the replacements hand back to tfjs
  const conv2dOrig = original('Conv2D');
  const gatherV2Orig = original('GatherV2');
  withoutOverrideWarnings(() => {
    tf.registerGradient(scatterNdGradient(tf));
    tf.registerGradient(gatherNdGradient(tf));
    tf.registerGradient(pointwiseConv2dGradient(tf, conv2dOrig));
    tf.registerGradient(batchMatMulGradient(tf));
    tf.registerGradient(gatherV2Gradient(tf, gatherV2Orig));
  });
  registered = true;
}

/** Run `register` with tfjs' "Overriding the gradient" warning silenced: the overrides are deliberate. */
function withoutOverrideWarnings(register: () => void): void {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('Overriding the gradient')) return;
    warn(...args);
  };
  try {
    register();
  } finally {
    console.warn = warn;
  }
}

/** `ScatterNd` w.r.t. its updates: gather the upstream gradient back. */
function scatterNdGradient(tf: Tf): GradConfig {
  return {
    kernelName: 'ScatterNd',
    inputsToSave: ['indices'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[]) => {
      const [indices] = saved;
      return { updates: () => tf.gatherND(dy as Tensor, indices), indices: () => tf.zerosLike(indices) };
    },
  };
}

/** `GatherNd` w.r.t. its params: scatter the upstream gradient. */
function gatherNdGradient(tf: Tf): GradConfig {
  return {
    kernelName: 'GatherNd',
    inputsToSave: ['params', 'indices'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[]) => {
      const [params, indices] = saved;
      return { params: () => tf.scatterND(indices, dy as Tensor, params.shape), indices: () => tf.zerosLike(indices) };
    },
  };
}

/** `Conv2D` with a 1×1 filter, stride 1, NHWC as two matMuls; any other Conv2D goes to tfjs' own gradient (`orig`). */
function pointwiseConv2dGradient(tf: Tf, orig: GradConfig | undefined): GradConfig {
  return {
    kernelName: 'Conv2D',
    inputsToSave: ['x', 'filter'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[], attrs: Record<string, unknown>) => {
      const [x, filter] = saved;
      const strides = attrs.strides as number | number[];
      const dil = attrs.dilations as number | number[] | undefined;
      const one = (v: number | number[] | undefined) => v === undefined || (Array.isArray(v) ? v.every((e) => e === 1) : v === 1);
      const pointwise = filter.shape[0] === 1 && filter.shape[1] === 1 && one(strides) && one(dil) && (attrs.dataFormat ?? 'NHWC') === 'NHWC';
      if (!pointwise) {
        if (!orig) throw new Error('no Conv2D gradient registered');
        return orig.gradFunc(dy, saved, attrs as any);
      }
      const cin = filter.shape[2] as number;
      const cout = filter.shape[3] as number;
      const w = tf.reshape(filter, [cin, cout]);
      const x2 = tf.reshape(x, [-1, cin]);
      const dy2 = tf.reshape(dy as Tensor, [-1, cout]);
      return {
        x: () => tf.reshape(tf.matMul(dy2, tf.transpose(w)), x.shape),
        filter: () => tf.reshape(tf.matMul(tf.transpose(x2), dy2), filter.shape),
      };
    },
  };
}

/** `BatchMatMul`: tfjs' own four cases with the transposes made explicit (no matMul transpose flags). */
function batchMatMulGradient(tf: Tf): GradConfig {
  return {
    kernelName: 'BatchMatMul',
    inputsToSave: ['a', 'b'],
    gradFunc: (dyIn: Tensor | Tensor[], saved: Tensor[], attrs: Record<string, unknown>) => {
      const dy = dyIn as Tensor;
      const [a, b] = saved;
      const tA = Boolean(attrs.transposeA);
      const tB = Boolean(attrs.transposeB);
      const T = (t: Tensor) => swapLast2(tf, t);
      if (!tA && !tB) return { a: () => tf.matMul(dy, T(b)), b: () => tf.matMul(T(a), dy) };
      if (!tA && tB) return { a: () => tf.matMul(dy, b), b: () => tf.matMul(T(dy), a) };
      if (tA && !tB) return { a: () => tf.matMul(b, T(dy)), b: () => tf.matMul(a, dy) };
      return { a: () => tf.matMul(T(b), T(dy)), b: () => tf.matMul(T(dy), T(a)) };
    },
  };
}

/**
 * `GatherV2` (the embedding lookup) on backends without `UnsortedSegmentSum` (wasm): the gradient rows are summed in
 * JavaScript; other backends and other gathers go to tfjs' own gradient (`orig`).
 */
function gatherV2Gradient(tf: Tf, orig: GradConfig | undefined): GradConfig {
  return {
    kernelName: 'GatherV2',
    inputsToSave: ['x', 'indices'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[], attrs: Record<string, unknown>) => {
      const [x, indices] = saved;
      const axis = Number(attrs.axis ?? 0);
      const batchDims = Number(attrs.batchDims ?? 0);
      if (hasKernel(tf, 'UnsortedSegmentSum') || axis !== 0 || batchDims !== 0 || x.dtype !== 'float32') {
        if (!orig) throw new Error('no GatherV2 gradient registered');
        return orig.gradFunc(dy, saved, attrs as any);
      }
      return {
        x: () => {
          const rows = x.shape[0];
          const width = x.size / rows;
          const idx = indices.dataSync();
          const g = (dy as Tensor).dataSync() as Float32Array;
          const out = new Float32Array(x.size);
          for (let i = 0; i < idx.length; i++) {
            const src = i * width;
            const dst = idx[i] * width;
            for (let j = 0; j < width; j++) out[dst + j] += g[src + j];
          }
          return tf.tensor(out, x.shape, 'float32');
        },
        indices: () => tf.zerosLike(indices),
      };
    },
  };
}
