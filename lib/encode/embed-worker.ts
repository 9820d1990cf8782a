/**
 * Worker-thread entry for `embedCorpusCached({ workers })`: builds its own encoder from `workerData.spec`, then
 * embeds the chunks it is sent. Not exported from the package index (it has side effects when run as a worker).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EncoderSpec, SentenceEncoder } from './types';
import { createEncoder } from './registry';

/** Messages parent → worker. */
export type ToWorker = { type: 'embed'; chunk: number; texts: string[] } | { type: 'stop' };
/** Messages worker → parent. */
export type FromWorker =
  | { type: 'ready'; encoderId: string; dim: number; backend: string | null }
  | { type: 'done'; chunk: number; data: Float32Array }
  | { type: 'error'; chunk: number | null; message: string; code?: string };

export const WORKER_MARK = '__eoEmbedWorker';

if (parentPort && workerData && (workerData as Record<string, unknown>)[WORKER_MARK]) {
  const port = parentPort;
  const spec = (workerData as { spec: EncoderSpec }).spec;
  let encoder: SentenceEncoder | null = null;
  const fail = (chunk: number | null, e: unknown) => {
    const err = e as { message?: string; code?: string };
    port.postMessage({ type: 'error', chunk, message: err?.message ?? String(e), code: err?.code } satisfies FromWorker);
  };
  createEncoder(spec).then(
    (enc) => {
      encoder = enc;
      port.postMessage({ type: 'ready', encoderId: enc.id, dim: enc.dim, backend: enc.backend ?? null } satisfies FromWorker);
    },
    (e) => fail(null, e),
  );
  port.on('message', async (msg: ToWorker) => {
    if (msg.type === 'stop') {
      encoder?.dispose();
      port.close();
      return;
    }
    if (!encoder) return fail(msg.chunk, new Error('worker got work before its encoder was ready'));
    try {
      const rows = await encoder.embed(msg.texts);
      const data = new Float32Array(rows.length * encoder.dim);
      rows.forEach((r, i) => data.set(r, i * encoder!.dim));
      port.postMessage({ type: 'done', chunk: msg.chunk, data } satisfies FromWorker, [data.buffer]);
    } catch (e) {
      fail(msg.chunk, e);
    }
  });
}
