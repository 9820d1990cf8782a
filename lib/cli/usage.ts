import { validateDensePrf, type DensePrf } from '../retrieve/prf';
import { EoError } from '../errors';
import { commandHelp, LLM_SYNOPSIS, SERVE_SYNOPSIS } from './flags';

/**
 * Usage line of `eo serve` (appended to its flag errors); `eo serve --help` lists every flag (lib/cli/flags.ts). Apart
 * from lib/cli/serve.ts so that `eo --help` and `eo search` print it without loading the service.
 */
export const SERVE_USAGE = `${SERVE_SYNOPSIS}\n(eo serve --help lists every flag with its default)`;

/** `--fusion` values of `eo search`, `eo eval` and `eo serve`; absent: the default ranking's (`DEFAULT_RANKING.fusion`). */
export function fusionFlag(v: string | undefined, usage: string): 'analytic' | 'grid' | 'rrf' | 'adaptive' | undefined {
  if (v === undefined) return undefined;
  if (v !== 'analytic' && v !== 'grid' && v !== 'rrf' && v !== 'adaptive') throw new EoError('INVALID_ARGUMENT', `--fusion must be adaptive, analytic, grid or rrf (got "${v}")\n${usage}`);
  return v;
}

/**
 * `--alpha` beside `--fusion` (eo search, eo eval, eo serve): a fixed α is a convex fusion's weight, and RRF has none,
 * so the pair is refused rather than the α silently turning the fusion convex.
 */
export function checkAlphaWithFusion(alpha: number | undefined, fusion: string | undefined, usage?: string): void {
  if (alpha !== undefined && fusion === 'rrf')
    throw new EoError('INVALID_ARGUMENT', `--alpha sets the weight of a convex fusion; --fusion rrf has none (drop --alpha, or drop --fusion rrf)${usage ? `\n${usage}` : ''}`);
}

/**
 * `--nnssc-top-m M|exact` of `eo search`, `eo eval` and `eo serve`: two-stage NN-SSC over the union of the top M of
 * BM25 and cosine (`loadSearchEngine`'s `nnsscTwoStage`), or `exact` (every dataset scored); absent: the default
 * ranking's (`DEFAULT_RANKING.nnsscTwoStage`), the same for every command.
 */
export function nnsscTopMFlag(v: string | undefined, usage: string): { topM: number } | false | undefined {
  if (v === undefined) return undefined;
  if (v === 'exact') return false;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new EoError('INVALID_ARGUMENT', `--nnssc-top-m must be a positive integer or "exact" (got ${JSON.stringify(v)})\n${usage}`, { flag: 'nnssc-top-m', value: v });
  return { topM: Number(v) };
}

/**
 * `--static-prf [lexical:]K:BETA|none`: the static encoder's query-time feedback (`DensePrf`; `lexical:` seeds it with
 * the lexical half's first K datasets instead of its own); undefined when not given (the default:
 * `DEFAULT_RANKING.staticPrf` with a lexical half, else `DEFAULT_STATIC_PRF`), null for `none` (one cosine pass).
 */
export function staticPrfFlag(v: string | undefined, usage: string): DensePrf | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  const m = /^(lexical:)?(\d+):(\S+)$/.exec(v);
  const prf: DensePrf | null = m && DECIMAL.test(m[3]) ? { k: Number(m[2]), beta: Number(m[3]), ...(m[1] ? { seeds: 'lexical' as const } : {}) } : null;
  const bad = `--static-prf must be K:BETA or lexical:K:BETA (an integer K ≥ 1 and a number BETA > 0, e.g. 3:1 or lexical:5:1) or none (got ${JSON.stringify(v)})\n${usage}`;
  if (!prf) throw new EoError('INVALID_ARGUMENT', bad, { flag: 'static-prf', value: v });
  try {
    validateDensePrf(prf);
  } catch {
    throw new EoError('INVALID_ARGUMENT', bad, { flag: 'static-prf', value: v });
  }
  return prf;
}

/** Usage text of `eo llm`, here so that `eo --help` prints it without loading the LLM SDKs (flags: lib/cli/flags.ts). */
export const LLM_USAGE = LLM_SYNOPSIS;

/** `eo cache` (lib/cli/cache.ts): its synopsis and flags. */
export const CACHE_USAGE = commandHelp('cache');

/** A decimal number as a user types it: no empty string, no spaces, no hex, no `Infinity` (Number() takes them all). */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export interface NumberFlagOptions {
  /** Only integers. Default false. */
  integer?: boolean;
  /** Smallest allowed value (inclusive). Default: none. */
  min?: number;
  /** Largest allowed value (inclusive). Default: none. */
  max?: number;
  /** Appended to the error message (the command's usage). Default none. */
  usage?: string;
}

/**
 * A numeric flag of `eo`, `eo serve`, `eo llm` or `eo bench`: `def` when absent; an empty, non-numeric or
 * out-of-range value (`--alpha ""`, `--k abc`, `--k 0`) → INVALID_ARGUMENT naming the flag and the value.
 */
export function numberFlag(v: string | undefined, name: string, def: number, opts?: NumberFlagOptions): number;
export function numberFlag(v: string | undefined, name: string, def: undefined, opts?: NumberFlagOptions): number | undefined;
export function numberFlag(v: string | undefined, name: string, def: number | undefined, opts: NumberFlagOptions = {}): number | undefined {
  if (v === undefined) return def;
  const n = DECIMAL.test(v) ? Number(v) : NaN;
  const range = opts.min !== undefined && opts.max !== undefined ? ` from ${opts.min} to ${opts.max}` : opts.min !== undefined ? ` ≥ ${opts.min}` : opts.max !== undefined ? ` ≤ ${opts.max}` : '';
  const want = `${opts.integer ? 'an integer' : 'a number'}${range}`;
  if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max))
    throw new EoError('INVALID_ARGUMENT', `--${name} must be ${want} (got ${JSON.stringify(v)})${opts.usage ? `\n${opts.usage}` : ''}`, { flag: name, value: v });
  return n;
}

