import { EoError } from '../errors';
import type { SentenceEncoder } from '../encode/types';
import { shortHash } from '../util/hash';

/**
 * R2 mean-bias removal (paper, "+ R2" row). Sentence embeddings share a common direction (anisotropy): every
 * vector has a large component along the mean, which inflates all cosines alike. R2 takes the unit mean
 * direction u of the dataset embeddings together with the TRAINING-query embeddings (never test queries),
 * projects every query and dataset vector onto the orthogonal complement, x' = x − (x·u)u, and re-normalises.
 */

/** Unit vector along the mean of all rows of the given row-major matrices (dim columns each). */
export function meanDirection(matrices: readonly Float32Array[], dim: number): Float32Array {
  const acc = new Float64Array(dim);
  let rows = 0;
  for (const m of matrices) {
    if (m.length % dim !== 0) throw new EoError('INVALID_ARGUMENT', `meanDirection: matrix length ${m.length} is not a multiple of ${dim}`);
    for (let o = 0; o < m.length; o += dim) {
      for (let j = 0; j < dim; j++) acc[j] += m[o + j];
      rows++;
    }
  }
  let norm = 0;
  for (let j = 0; j < dim; j++) norm += acc[j] * acc[j];
  norm = Math.sqrt(norm);
  if (!(rows > 0 && norm > 0)) throw new EoError('INVALID_ARGUMENT', 'meanDirection: no rows, or their mean is the zero vector');
  const u = new Float32Array(dim);
  for (let j = 0; j < dim; j++) u[j] = acc[j] / norm;
  return u;
}

/** Remove the component along the unit vector u from every row (new matrix), then L2-normalise each row. */
export function removeDirection(matrix: Float32Array, dim: number, u: Float32Array): Float32Array {
  if (u.length !== dim) throw new EoError('INVALID_ARGUMENT', `removeDirection: direction has ${u.length} values, expected ${dim}`);
  const out = new Float32Array(matrix.length);
  const row = new Float64Array(dim);
  for (let o = 0; o < matrix.length; o += dim) {
    let p = 0;
    for (let j = 0; j < dim; j++) p += matrix[o + j] * u[j];
    let n = 0;
    for (let j = 0; j < dim; j++) {
      const v = matrix[o + j] - p * u[j];
      row[j] = v;
      n += v * v;
    }
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let j = 0; j < dim; j++) out[o + j] = row[j] * inv;
  }
  return out;
}

export interface R2Transform {
  /** The unit mean direction removed. */
  direction: Float32Array;
  /** Dataset embeddings after R2 (unit norm, orthogonal to `direction`). */
  datasets: Float32Array;
  /** Apply R2 to query (or any) vectors: a new matrix. */
  project(vectors: Float32Array): Float32Array;
}

/** Fit R2 on dataset + training-query embeddings and transform the datasets. */
export function r2Transform(datasetMatrix: Float32Array, trainQueryMatrix: Float32Array, dim: number): R2Transform {
  const direction = meanDirection([datasetMatrix, trainQueryMatrix], dim);
  return { direction, datasets: removeDirection(datasetMatrix, dim, direction), project: (v) => removeDirection(v, dim, direction) };
}

/**
 * An encoder whose vectors are the wrapped encoder's after R2 (so `denseScorer(r2Encoder(enc, u), r2.datasets)` is
 * the "+ R2" cosine). Its id gets a `+r2-<hash of u>` suffix, so cached query vectors never mix.
 */
export function r2Encoder(encoder: SentenceEncoder, direction: Float32Array): SentenceEncoder {
  const tag = shortHash(new Uint8Array(direction.buffer, direction.byteOffset, direction.byteLength), 10);
  return {
    id: `${encoder.id}+r2-${tag}`,
    dim: encoder.dim,
    backend: encoder.backend,
    async embed(texts) {
      const vecs = await encoder.embed(texts);
      return vecs.map((v) => removeDirection(v, encoder.dim, direction));
    },
    dispose() {
      /* the wrapped encoder is owned by the caller */
    },
  };
}
