import { EoError } from '../errors';
import { encodeOnnxModel, loadOnnxRuntime, ONNX_FLOAT, ONNX_INT64 } from '../tensor/onnx';
import { openOnnxSession, type OnnxSession, type OnnxThread } from '../tensor/onnx-session';

export interface DenseOnnxOptions {
  /** onnxruntime intra-op threads. Default 1 (a service: the event loop and the encoder use the other core). */
  intraOpThreads?: number;
  /** Where the product runs (`OnnxThread`): `caller` (default) or the process's onnx `worker` thread (a service). */
  thread?: OnnxThread;
}

const ONE = { type: 'int64' as const, data: new BigInt64Array([1n]), dims: [1] };

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
      // `top_rows`: the k best rows per query (TopK: largest first, ties to the lower row, as `topKIndexSet`), fetched
      // only by `topRows` (a run fetching `s` alone does not compute it)
      nodes: [
        { opType: 'Transpose', inputs: ['q'], outputs: ['qt'] },
        { opType: 'MatMul', inputs: ['m', 'qt'], outputs: ['s'] },
        { opType: 'TopK', inputs: ['s', 'k'], outputs: ['top_values', 'top_rows'], attributes: { axis: 0, largest: 1, sorted: 1 } },
      ],
      initializers: [{ name: 'm', dims: [n, dim], data: matrix }],
      inputs: [{ name: 'q', elemType: ONNX_FLOAT, shape: ['batch', dim] }, { name: 'k', elemType: ONNX_INT64, shape: [1] }],
      outputs: [
        { name: 's', elemType: ONNX_FLOAT, shape: [n, 'batch'] },
        { name: 'top_values', elemType: ONNX_FLOAT, shape: ['k_out', 'batch'] },
        { name: 'top_rows', elemType: ONNX_INT64, shape: ['k_out', 'batch'] },
      ],
    });
    const threads = Math.max(1, Math.floor(opts.intraOpThreads ?? 1));
    const session = await openOnnxSession(bytes, { intraOpThreads: threads, thread: opts.thread, lane: 'scoring' });
    return new DenseOnnxIndex(session, n, dim);
  }

  /** One score vector per query (rows of the row-major Q×dim `queries`), aligned with corpus order. */
  async scores(queries: Float32Array): Promise<Float32Array[]> {
    if (!this.session) throw new EoError('INVALID_ARGUMENT', 'DenseOnnxIndex used after dispose()');
    if (queries.length % this.dim !== 0) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex: ${queries.length} query values are not a multiple of dim ${this.dim}`);
    const nq = queries.length / this.dim;
    if (nq === 0) return [];
    const out = await this.session.run({ q: { type: 'float32', data: queries, dims: [nq, this.dim] }, k: ONE }, ['s']);
    const s = out.s.data as Float32Array; // N×Q
    const n = this.size;
    if (nq === 1) return [s.slice()];
    const vecs = Array.from({ length: nq }, () => new Float32Array(n));
    for (let r = 0, o = 0; r < n; r++, o += nq) for (let q = 0; q < nq; q++) vecs[q][r] = s[o + q];
    return vecs;
  }

  /**
   * Per query, the rows of its `m` best cosines (the set `topKIndexSet(scores(q)[i], m)` picks), computed beside the MatMul:
   * the N×Q scores never leave onnxruntime (a two-stage first stage needs only these rows).
   */
  async topRows(queries: Float32Array, m: number): Promise<Int32Array[]> {
    if (!this.session) throw new EoError('INVALID_ARGUMENT', 'DenseOnnxIndex used after dispose()');
    if (!(Number.isInteger(m) && m >= 1)) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex.topRows: m must be an integer ≥ 1, got ${m}`);
    if (queries.length % this.dim !== 0) throw new EoError('INVALID_ARGUMENT', `DenseOnnxIndex: ${queries.length} query values are not a multiple of dim ${this.dim}`);
    const nq = queries.length / this.dim;
    if (nq === 0) return [];
    const k = Math.min(m, this.size);
    const out = await this.session.run({ q: { type: 'float32', data: queries, dims: [nq, this.dim] }, k: { type: 'int64', data: new BigInt64Array([BigInt(k)]), dims: [1] } }, ['top_rows']);
    const r = out.top_rows.data as BigInt64Array; // K×Q
    const rows = Array.from({ length: nq }, () => new Int32Array(k));
    for (let j = 0, o = 0; j < k; j++) for (let q = 0; q < nq; q++, o++) rows[q][j] = Number(r[o]);
    return rows;
  }

  dispose(): void {
    if (this.session) void this.session.release();
    this.session = null;
  }
}
