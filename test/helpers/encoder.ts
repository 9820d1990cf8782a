// Shared by the training tests: a tiny deterministic sentence encoder (no model download, no tfjs).
import { type SentenceEncoder } from '../../lib';
import { shortHash } from '../../lib/util';

/** A deterministic bag-of-hashed-words encoder (`dim`-d, unit norm): enough signal for a tiny NN-SSC or fine-tuning run. */
export function fakeEncoder(dim = 16): SentenceEncoder {
  const vec = (t: string) => {
    const v = new Float32Array(dim);
    for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[parseInt(shortHash(w, 4), 16) % dim] += 1;
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  return { id: `fake-bow-${dim}`, dim, async embed(ts) { return ts.map(vec); }, dispose() {} };
}
