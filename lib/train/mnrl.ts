import { EoError } from '../errors';
import { getTf } from '../tensor/backend';

type Tf = ReturnType<typeof getTf>;
type Tensor = ReturnType<Tf['tensor']>;
type Scalar = ReturnType<Tf['scalar']>;

/** τ = 0.07 of the paper, as a logit scale: 1/τ ≈ 14.29. */
export const MNRL_PAPER_SCALE = 1 / 0.07;
/** Added to masked logits (false negatives): exp(−1e4) underflows to 0 in float32. */
const MASKED = -1e4;

/**
 * MultipleNegativesRankingLoss (InfoNCE) as in sentence-transformers: query i's candidates are every document row
 * (its own positive at column i, the other queries' positives and all hard negatives); loss = mean over queries of
 * −log softmax(scale · cos(q_i, d_j))_i. Rows must already be unit-norm (USE-lite's are), so cos = dot product.
 * `mask` (B × C, 1 = drop) removes candidates that are in fact positives of that query (another positive of the
 * same publication in the batch) so they do not act as false negatives; the own positive must stay.
 * Differentiable; call inside a gradient tape.
 */
export function mnrlLoss(queries: Tensor, docs: Tensor, scale = MNRL_PAPER_SCALE, mask?: Tensor): Scalar {
  const tf = getTf();
  const b = queries.shape[0];
  if (queries.rank !== 2 || docs.rank !== 2 || docs.shape[0] < b || docs.shape[1] !== queries.shape[1])
    throw new EoError('INVALID_ARGUMENT', `mnrlLoss: queries [${queries.shape}] and docs [${docs.shape}]: docs need ≥ B rows (positives first) of the same width`);
  return tf.tidy(() => {
    let logits = tf.mul(tf.matMul(queries, tf.transpose(docs)), scale);
    if (mask) logits = tf.add(logits, tf.mul(mask, MASKED));
    const lse = tf.logSumExp(logits, 1);
    const own = tf.sum(tf.mul(logits, tf.oneHot(tf.range(0, b, 1, 'int32'), docs.shape[0])), 1);
    return tf.mean(tf.sub(lse, own)) as Scalar;
  });
}

/** The same loss in plain JavaScript (float64), for checks: rows of `q` against rows of `d`. */
export function mnrlLossReference(q: number[][], d: number[][], scale = MNRL_PAPER_SCALE, mask?: number[][]): number {
  let total = 0;
  for (let i = 0; i < q.length; i++) {
    const logits = d.map((row, j) => (mask?.[i]?.[j] ? -Infinity : scale * row.reduce((s, v, k) => s + v * q[i][k], 0)));
    const m = Math.max(...logits);
    const lse = m + Math.log(logits.reduce((s, l) => s + Math.exp(l - m), 0));
    total += lse - logits[i];
  }
  return total / q.length;
}
