import { EoError } from '../errors';

/**
 * Usage text of `eo serve`, apart from lib/cli/serve.ts so that `eo --help` and `eo search` print it without
 * loading the service (Fastify, LLM SDKs, the search pipeline): eo.ts imports ./serve only for `eo serve`.
 */
export const SERVE_USAGE = `usage: eo serve [--port 8765] [--host 127.0.0.1] [--sample] [--data DIR] [--semantic best|nnssc|use-lite|none] [--fusion adaptive|analytic|grid|rrf] [--alpha A] [--rate-limit 300] [--max-query 500] [--llm-router MODEL_ID] [--nnssc-top-m M|exact] [--encoder use-lite:onnx|use-lite:tfjs|onnx:<dir>] [--no-batch] [--log]`;

/** `--fusion` values of `eo search`, `eo eval` and `eo serve`; absent: the default ranking's (`DEFAULT_RANKING.fusion`). */
export function fusionFlag(v: string | undefined, usage: string): 'analytic' | 'grid' | 'rrf' | 'adaptive' | undefined {
  if (v === undefined) return undefined;
  if (v !== 'analytic' && v !== 'grid' && v !== 'rrf' && v !== 'adaptive') throw new EoError('INVALID_ARGUMENT', `--fusion must be adaptive, analytic, grid or rrf (got "${v}")\n${usage}`);
  return v;
}

/**
 * `--nnssc-top-m M|exact` of `eo search`, `eo eval` and `eo serve`: two-stage NN-SSC over the union of the top M of
 * BM25 and cosine (`loadSearchEngine`'s `nnsscTwoStage`), or `exact` (every dataset scored); absent: the default
 * ranking's (`DEFAULT_RANKING.nnsscTwoStage`), the same for every command.
 */
export function nnsscTopMFlag(v: string | undefined, usage: string): { topM: number } | false | undefined {
  if (v === undefined) return undefined;
  if (v === 'exact') return false;
  const m = Number(v);
  if (!/^\d+$/.test(v) || !Number.isInteger(m) || m < 1) throw new EoError('INVALID_ARGUMENT', `--nnssc-top-m must be a positive integer or "exact" (got "${v}")\n${usage}`);
  return { topM: m };
}

/** Usage text of `eo llm`, here so that `eo --help` prints it without loading the LLM SDKs. */
export const LLM_USAGE = `  eo llm plan [--queries 200] [--writer] [--models ID,ID] [--agentic ID,ID] [--json] [--sample] [--data DIR]
  eo llm batch --stage listwise|judge|writer --model ID [--no-wait] [--poll-seconds 30] [--max-attempts 2] [--sample]
  eo llm import FILE [--field ours=theirs ...] [--store PATH] [--dry-run] [--sample]
  eo llm status`;

/** `eo cache` (lib/cli/cache.ts). */
export const CACHE_USAGE = `usage:
  eo cache verify                                              check every cache's content hash: one line per file
  eo cache rebuild bm25|embeddings|all [--sample] [--data DIR]  remove damaged or stale caches and rebuild the snapshot's`;
