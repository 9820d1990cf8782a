/**
 * `eo serve`: the search service (JSON API + web page) on the offline snapshot.
 *   eo serve [--port 8765] [--host 127.0.0.1] [--sample] [--data DIR] [--semantic best|nnssc|use-lite|static|none]
 *            [--fusion adaptive|analytic|grid|rrf] [--alpha A] [--rate-limit 300] [--max-query 500] [--llm-router MODEL_ID]
 *            [--nnssc-top-m M|exact] [--encoder use-lite:onnx|use-lite:tfjs|onnx:<dir>] [--no-batch] [--log]
 * --encoder: the query encoder (default: $EO_ENCODER when set, else SERVICE_ENCODER_SPEC, USE-lite on onnxruntime).
 * --nnssc-top-m, --fusion: default the default ranking's (DEFAULT_RANKING in lib/search/defaults.ts), as for `eo search`
 * and `eo eval --system best`: the page, the API and the command line rank alike.
 * --no-batch: embed each query alone and keep no answer cache (the pre-batching path, for comparison).
 * --llm-router: let an LLM (a model id of lib/llm/models.json, configured from the environment like every LLM call,
 * and recorded) choose the tools; default: the rule router.
 * Loads the search engine once (lib/search: corpus, BM25 index, semantic scorer over its cached corpus embeddings, α
 * from its stored fusion record), then answers requests until SIGINT/SIGTERM.
 */
import * as dns from 'node:dns/promises';
import * as net from 'node:net';
import { parseArgs } from 'node:util';
import { loadSnapshot } from '../data/snapshot';
import { EoError } from '../errors';
import { loadSearchEngine } from '../search/engine';
import { createSearchServer } from '../serve/server';
import { createLlmClientFromEnv } from '../llm/client';
import { checkAlphaWithFusion, fusionFlag, nnsscTopMFlag, numberFlag, SERVE_USAGE, staticPrfFlag } from './usage';
import { MAX_QUERY_CHARS } from '../serve/validate';
import { parseArgsOptions, SERVE_FLAGS } from './flags';
import { gcmdKeywordsFile } from '../router/variables';
import { SERVE_PROCESS, SERVICE_ENCODER_SPEC } from '../serve/types';
import { chosenEncoderSpec } from '../encode/registry';
import { stopOnnxWorkers } from '../tensor/onnx-session';

export { SERVE_PROCESS };

export { SERVE_USAGE };



/** `--host`: an IP address, or a name this machine resolves (`localhost`); else INVALID_ARGUMENT before anything loads. */
async function checkHost(host: string): Promise<void> {
  if (net.isIP(host) !== 0) return;
  try {
    await dns.lookup(host);
  } catch (e) {
    throw new EoError('INVALID_ARGUMENT', `--host ${host}: not an IP address, and the name does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); use an address of this machine such as 127.0.0.1, 0.0.0.0 or ::1\n${SERVE_USAGE}`);
  }
}

/** A failed listen as an EoError: an address that is not this machine's is a usage error, a port in use an environment one. */
function listenFailure(e: unknown, host: string, port: number): EoError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new EoError('INVALID_ARGUMENT', `--host ${host}: not an address of this machine (${code}); use one it has, such as 127.0.0.1, 0.0.0.0 or ::1`);
  if (code === 'EADDRINUSE') return new EoError('CONFIG', `port ${port} on ${host} is in use (${code}): another eo serve, or another program, listens there; stop it or choose --port`);
  if (code === 'EACCES') return new EoError('CONFIG', `port ${port} on ${host} may not be opened by this user (${code}): ports below 1024 need privileges; choose --port 1024 or above`);
  return e instanceof EoError ? e : new EoError('CONFIG', `cannot listen on ${host}:${port}: ${(e as Error).message}`);
}

/** Start the service; resolves once it listens, with a `close()` that stops it. */
export async function runServe(argv: string[], log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<{ url: string; close: () => Promise<void> }> {
  const values = parseArgs({ args: argv, options: parseArgsOptions(SERVE_FLAGS) }).values as {
    port?: string; host?: string; sample?: boolean; data?: string; semantic?: string; alpha?: string; fusion?: string; 'rate-limit'?: string;
    'max-query'?: string; log?: boolean; 'llm-router'?: string; 'no-batch'?: boolean; 'nnssc-top-m'?: string; 'static-prf'?: string; encoder?: string;
  };
  const port = numberFlag(values.port, 'port', 8765, { integer: true, min: 0, max: 65535, usage: SERVE_USAGE });
  const host = values.host ?? '127.0.0.1';
  const semantic = values.semantic ?? 'best';
  if (semantic !== 'best' && semantic !== 'nnssc' && semantic !== 'use-lite' && semantic !== 'static' && semantic !== 'none') throw new EoError('INVALID_ARGUMENT', `--semantic must be best, nnssc, use-lite, static or none\n${SERVE_USAGE}`);
  const fusion = fusionFlag(values.fusion, SERVE_USAGE);
  // every flag is checked before anything loads
  const alpha = numberFlag(values.alpha, 'alpha', undefined, { min: 0, max: 1, usage: SERVE_USAGE });
  checkAlphaWithFusion(alpha, fusion, SERVE_USAGE);
  const rateLimitMax = numberFlag(values['rate-limit'], 'rate-limit', 300, { integer: true, min: 1, usage: SERVE_USAGE });
  const maxQueryChars = numberFlag(values['max-query'], 'max-query', MAX_QUERY_CHARS, { integer: true, min: 1, usage: SERVE_USAGE });
  const nnsscTwoStage = nnsscTopMFlag(values['nnssc-top-m'], SERVE_USAGE);
  const staticPrf = staticPrfFlag(values['static-prf'], SERVE_USAGE);
  await checkHost(host);
  const t0 = Date.now();
  const corpus = loadSnapshot({ dir: values.data, sample: values.sample });
  log(`loaded ${corpus.datasets.length} datasets from ${corpus.origin}`);
  const encoderSpec = chosenEncoderSpec(values.encoder, SERVICE_ENCODER_SPEC);
  let lastLine = 0;
  const engine = await loadSearchEngine(corpus, {
    semantic, fusion, sample: !!values.sample,
    // concurrent requests share the encoder's calls (micro-batches, no wait when idle) and an LRU of query embeddings
    queryBatching: values['no-batch'] ? false : {},
    encoderSpec,
    nnsscTwoStage,
    ...(staticPrf !== undefined ? { staticPrf } : {}),
    // --data names the router's GCMD keywords too
    gcmdFile: values.data === undefined ? undefined : gcmdKeywordsFile(values.data),
    alpha,
    log: (line: string) => {
      // progress lines (embedding) are throttled; decisions (α computed and stored) always show
      if (!line.startsWith('embedding') || Date.now() - lastLine > 2000) {
        lastLine = Date.now();
        log(line);
      }
    },
  });
  const app = await createSearchServer(engine, {
    rateLimitMax,
    maxQueryChars,
    logger: !!values.log,
    resultCacheEntries: values['no-batch'] ? 0 : undefined,
    // the LLM layer reads mode (live/record/replay), record store and API key from the environment; calls are recorded
    llmRouter: values['llm-router'] ? createLlmClientFromEnv(values['llm-router']) : undefined,
  });
  let address: string;
  try {
    address = await app.listen({ port, host });
  } catch (e) {
    await app.close();
    engine.dispose();
    await stopOnnxWorkers();
    throw listenFailure(e, host, port);
  }
  log(`${engine.label}; α from ${engine.fusion.source}; router: ${values['llm-router'] ? `LLM ${values['llm-router']}` : 'rules'}`);
  log(`eo serve: listening on ${address} (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return {
    url: address,
    close: async () => {
      await app.close();
      engine.dispose();
      // the onnx worker threads release their sessions and end (ending the process with them open aborts it)
      await stopOnnxWorkers();
    },
  };
}
