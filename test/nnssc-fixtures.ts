import { type NnsscModel } from '../lib/retrieve';
import { mulberry32 } from '../lib/util';

/** Shared by the NN-SSC tests: seeded random matrices and models. */
export function randMatrix(rows: number, cols: number, seed: number, scale = 1): Float32Array {
  const rng = mulberry32(seed);
  const m = new Float32Array(rows * cols);
  for (let i = 0; i < m.length; i++) m[i] = (rng() * 2 - 1) * scale;
  return m;
}

export function randomModel(dim: number, h1: number, h2: number, seed: number): NnsscModel {
  return {
    dim, hidden1: h1, hidden2: h2,
    w1: randMatrix(2 * dim, h1, seed, 0.5), b1: randMatrix(1, h1, seed + 1, 0.2), w2: randMatrix(h1, h2, seed + 2, 0.5),
    b2: randMatrix(1, h2, seed + 3, 0.2), w3: randMatrix(h2, 1, seed + 4, 0.5), b3: 0.25,
  };
}
