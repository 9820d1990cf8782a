/**
 * The onnx worker thread (`openOnnxSession({ thread: 'worker' })`): opens sessions from model bytes and runs them,
 * one request at a time, answering each by id. Outputs are transferred back (no copy).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadOnnxRuntime } from './onnx';
import { onnxSessionOptions, ortFeeds, type FromOnnxWorker, type OnnxOutput, type ToOnnxWorker } from './onnx-session';

type OrtSession = import('onnxruntime-node').InferenceSession;

if (parentPort && (workerData as { __eoOnnxWorker?: boolean } | null)?.__eoOnnxWorker) {
  const port = parentPort;
  const ort = loadOnnxRuntime();
  const sessions = new Map<number, OrtSession>();
  let next = 0;
  const answer = (msg: FromOnnxWorker, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
  port.on('message', async (msg: ToOnnxWorker) => {
    try {
      if (!ort) throw new Error('onnxruntime-node cannot be loaded (it ships with @huggingface/transformers; run npm install)');
      if (msg.type === 'open') {
        const s = await ort.InferenceSession.create(msg.bytes, onnxSessionOptions(msg.threads, msg.memArena));
        sessions.set(next, s);
        answer({ type: 'opened', id: msg.id, session: next++ });
      } else if (msg.type === 'run') {
        const s = sessions.get(msg.session);
        if (!s) throw new Error(`no open session ${msg.session}`);
        const feeds = ortFeeds(ort, msg.feeds);
        const out = await (msg.fetches ? s.run(feeds, msg.fetches) : s.run(feeds));
        const outputs: Record<string, OnnxOutput> = {};
        const transfer: ArrayBuffer[] = [];
        for (const [name, t] of Object.entries(out)) {
          // a fresh copy owns its whole buffer, so it can be transferred
          const data = (t.data as Float32Array).slice();
          outputs[name] = { data, dims: [...t.dims], type: t.type };
          transfer.push(data.buffer as ArrayBuffer);
        }
        answer({ type: 'ran', id: msg.id, outputs }, transfer);
      } else if (msg.type === 'stop') {
        for (const s of sessions.values()) await s.release();
        sessions.clear();
        answer({ type: 'stopped', id: msg.id });
      } else if (msg.type === 'release') {
        const s = sessions.get(msg.session);
        sessions.delete(msg.session);
        if (s) await s.release();
        answer({ type: 'released', id: msg.id });
      }
    } catch (e) {
      answer({ type: 'failed', id: msg.id, message: (e instanceof Error ? e.message : String(e)).split('\n')[0] });
    }
  });
}
