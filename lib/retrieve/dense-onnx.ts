import { EoError } from '../errors';
import { encodeOnnxModel, loadOnnxRuntime, ONNX_FLOAT } from '../tensor/onnx';
import { openOnnxSession, type OnnxSession, type OnnxThread } from '../tensor/onnx-session';

export interface DenseOnnxOptions {
  /** onnxruntime intra-op threads. Default 1 (a service: the event loop and the encoder use the other core). */
  intraOpThreads?: number;
  /** Where the product runs (`OnnxThread`): `caller` (default) or the process's onnx `worker` thread (a service). */
  thread?: OnnxThread;
}

/**
 * Exact cosine scores of a batch of queries against the whole corpus as ONE matrix product on onnxruntime-node's
 * CPU kernels (MLAS SGEMM): `S = M · Qᵀ` with the corpus matrix M (N×dim, row-major, as cached) a constant of the
 * graph and the queries its input, so a micro-batch of Q queries costs one GEMM instead of Q passes over M in JS.
 * Same numbers as `denseScores` up to float32 summation order. `create` returns null when onnxruntime-node cannot
 * be loaded (callers use the JS kernel, `denseScoresBatch`).
 */
export class DenseOnnxIndex {
  readonly size: number;
  readonly dim: number;
  readonly backend = 'onnxruntime-cpu';
  private session: OnnxSession | null;

  private constructor(session: OnnxSession, size: number, dim: number) {
    this.session = session;
    this.size = size;
    this.dim = dim;
  }

  static async create(matrix: Float32Array, dim: number, opts: DenseOnnxOptions = {}): Promise<DenseOnnxIndex | null> {
    if (!Number.isInteger(dim) || dim < 1) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex: dim must be a positive integer, got ${dim}`);
    if (matrix.length === 0 || matrix.length % dim !== 0) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex: matrix length ${matrix.length} is not a positive multiple of dim ${dim}`);
    if (!loadOnnxRuntime()) return null;
    const n = matrix.length / dim;
    const bytes = encodeOnnxModel({
      name: 'cosine_batch',
      nodes: [
        { opType: 'Transpose', inputs: ['q'], outputs: ['qt'] },
        { opType: 'MatMul', inputs: ['m', 'qt'], outputs: ['s'] },
      ],
      initializers: [{ name: 'm', dims: [n, dim], data: matrix }],
      inputs: [{ name: 'q', elemType: ONNX_FLOAT, shape: ['batch', dim] }],
      outputs: [{ name: 's', elemType: ONNX_FLOAT, shape: [n, 'batch'] }],
    });
    const threads = Math.max(1, Math.floor(opts.intraOpThreads ?? 1));
    const session = await openOnnxSession(bytes, { intraOpThreads: threads, thread: opts.thread });
    return new DenseOnnxIndex(session, n, dim);
  }

  /** One score vector per query (rows of the row-major Q×dim `queries`), aligned with corpus order. */
  async scores(queries: Float32Array): Promise<Float32Array[]> {
    if (!this.session) throw new EoError('INVALID_ARGUMENT', 'DenseOnnxIndex used after dispose()');
    if (queries.length % this.dim !== 0) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex: ${queries.length} query values are not a multiple of dim ${this.dim}`);
    const nq = queries.length / this.dim;
    if (nq === 0) return [];
    const out = await this.session.run({ q: { type: 'float32', data: queries, dims: [nq, this.dim] } });
    const s = out.s.data as Float32Array; // N×Q
    const n = this.size;
    if (nq === 1) return [s.slice()];
    const vecs = Array.from({ length: nq }, () => new Float32Array(n));
    for (let r = 0, o = 0; r < n; r++, o += nq) for (let q = 0; q < nq; q++) vecs[q][r] = s[o + q];
    return vecs;
  }

  dispose(): void {
    if (this.session) void this.session.release();
    this.session = null;
  }
}
