/**
 * Worker-thread entry of `NnsscThreadedIndex`: holds one shard of the corpus (its first-layer projections) and
 * scores the queries it is sent. Not exported from the package index (it has side effects when run as a worker).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TfBackendName } from '../tensor/types';
import type { NnsscModel } from './nnssc';
import { NnsscCorpusIndex } from './nnssc-index';

export const NNSSC_WORKER_MARK = '__eoNnsscWorker';

export type ToNnsscWorker = { type: 'score'; id: number; queries: Float32Array } | { type: 'stop' };
export type FromNnsscWorker =
  | { type: 'ready'; backend: string }
  | { type: 'scores'; id: number; data: Float32Array }
  | { type: 'error'; id: number | null; message: string };

if (parentPort && workerData && (workerData as Record<string, unknown>)[NNSSC_WORKER_MARK]) {
  const port = parentPort;
  const wd = workerData as { model: NnsscModel; shard: Float32Array; backend?: TfBackendName; queriesPerBatch?: number };
  let index: NnsscCorpusIndex | null = null;
  const ready = NnsscCorpusIndex.create(wd.model, wd.shard, { backend: wd.backend, queriesPerBatch: wd.queriesPerBatch }).then(
    (i) => {
      index = i;
      port.postMessage({ type: 'ready', backend: i.backend } satisfies FromNnsscWorker);
    },
    (e) => port.postMessage({ type: 'error', id: null, message: (e as Error)?.message ?? String(e) } satisfies FromNnsscWorker),
  );
  port.on('message', async (msg: ToNnsscWorker) => {
    if (msg.type === 'stop') {
      index?.dispose();
      port.close();
      return;
    }
    await ready;
    try {
      const rows = await index!.scoreVectors(msg.queries);
      const n = index!.size;
      const data = new Float32Array(rows.length * n);
      rows.forEach((r, i) => data.set(r, i * n));
      port.postMessage({ type: 'scores', id: msg.id, data } satisfies FromNnsscWorker, [data.buffer]);
    } catch (e) {
      port.postMessage({ type: 'error', id: msg.id, message: (e as Error)?.message ?? String(e) } satisfies FromNnsscWorker);
    }
  });
}
