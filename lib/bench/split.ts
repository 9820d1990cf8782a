import { EoError } from '../errors';
import { mulberry32, shuffleInPlace } from '../util/random';
import type { Split } from './types';

/** Default strata of "number of linked datasets" (the paper stratifies by citation count, which we lack). */
export const DEFAULT_STRATA = [
  { label: '1', min: 1, max: 1 },
  { label: '2', min: 2, max: 2 },
  { label: '3-5', min: 3, max: 5 },
  { label: '6-10', min: 6, max: 10 },
  { label: '11+', min: 11, max: Number.MAX_SAFE_INTEGER },
];

export type Stratum = (typeof DEFAULT_STRATA)[number];

export function stratumOf(n: number, strata: readonly Stratum[] = DEFAULT_STRATA): string {
  const s = strata.find((x) => n >= x.min && n <= x.max);
  if (!s) throw new EoError('BENCH', `no stratum holds ${n}`);
  return s.label;
}

/**
 * Publication-level split, stratified: within each stratum the items are shuffled with the seed and
 * round(n × testFraction) go to test. Items are sorted by id first, so the result depends only on the ids,
 * the strata and the seed (not on input order).
 */
export function stratifiedSplit(items: { id: string; stratum: string }[], testFraction: number, seed: number): Map<string, Split> {
  if (!(testFraction > 0 && testFraction < 1)) throw new EoError('INVALID_ARGUMENT', `testFraction must be in (0,1), got ${testFraction}`);
  const byStratum = new Map<string, string[]>();
  for (const it of [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    let l = byStratum.get(it.stratum);
    if (!l) byStratum.set(it.stratum, (l = []));
    l.push(it.id);
  }
  const rng = mulberry32(seed);
  const out = new Map<string, Split>();
  for (const key of [...byStratum.keys()].sort()) {
    const ids = shuffleInPlace(byStratum.get(key)!, rng);
    const nTest = Math.round(ids.length * testFraction);
    ids.forEach((id, i) => out.set(id, i < nTest ? 'test' : 'train'));
  }
  return out;
}

/**
 * Stratified sample of n items (all of them when there are n or fewer): proportional allocation per stratum
 * with largest remainders, items drawn with the seed. Returned in id order.
 */
export function stratifiedSample(items: { id: string; stratum: string }[], n: number, seed: number): string[] {
  if (items.length <= n) return items.map((i) => i.id).sort();
  const byStratum = new Map<string, string[]>();
  for (const it of [...items].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    let l = byStratum.get(it.stratum);
    if (!l) byStratum.set(it.stratum, (l = []));
    l.push(it.id);
  }
  const keys = [...byStratum.keys()].sort();
  const quotas = keys.map((k) => (byStratum.get(k)!.length * n) / items.length);
  const alloc = quotas.map(Math.floor);
  let left = n - alloc.reduce((a, b) => a + b, 0);
  const order = keys.map((_, i) => i).sort((a, b) => quotas[b] - alloc[b] - (quotas[a] - alloc[a]) || a - b);
  for (const i of order) {
    if (left === 0) break;
    alloc[i]++;
    left--;
  }
  const rng = mulberry32(seed);
  const out: string[] = [];
  keys.forEach((k, i) => out.push(...shuffleInPlace([...byStratum.get(k)!], rng).slice(0, alloc[i])));
  return out.sort();
}
