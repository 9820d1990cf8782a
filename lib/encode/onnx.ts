import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { ONNX_DEVICE_ENV, type OnnxEncoderOptions, type OnnxPooling, type SentenceEncoder } from './types';
import { l2NormalizeInPlace } from '../util/vector';

type Transformers = typeof import('@huggingface/transformers');

/**
 * transformers.js, loaded on first use (it pulls onnxruntime-node and sharp: ~0.5 s, so not at `require('lib')`).
 * The package ships a CommonJS build (`exports.node.require` → `dist/transformers.node.cjs`), so a plain
 * `require` works from our CommonJS output; no `import()` trick is needed.
 */
function transformers(): Transformers {
  try {
    return require('@huggingface/transformers') as Transformers;
  } catch (e) {
    throw new EoError('ENCODER', `@huggingface/transformers cannot be loaded (it is a dependency: run npm install): ${(e as Error).message.split('\n')[0]}`);
  }
}

/** What a sentence-transformers folder says about itself (`modules.json`, the Pooling config). */
export interface SentenceTransformersLayout {
  /** Pooling mode from the Pooling module's config; null when the folder has no Pooling module. */
  pooling: OnnxPooling | null;
  /** True when `modules.json` lists a Normalize module. */
  normalize: boolean;
  /** ONNX file used, relative to the folder (`onnx/model.onnx` or `model.onnx`). */
  modelFile: string;
  /** `hidden_size` from `config.json`, when present. */
  hiddenSize: number | null;
  /** `max_position_embeddings` from `config.json`, when present. */
  maxPositions: number | null;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EoError('ENCODER', `cannot read ${file}: ${(e as Error).message}`, { file });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new EoError('ENCODER', `${file}: not valid JSON (${(e as Error).message})`, { file });
  }
}

const POOLING_FLAGS: Array<[string, OnnxPooling]> = [
  ['pooling_mode_cls_token', 'cls'],
  ['pooling_mode_mean_tokens', 'mean'],
  ['pooling_mode_max_tokens', 'max'],
  ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len'],
];

/** Pooling mode named by a sentence-transformers `1_Pooling/config.json`; throws ENCODER when none or several are on. */
export function poolingFromConfig(config: Record<string, unknown>, file = 'Pooling config'): OnnxPooling {
  if (typeof config.pooling_mode === 'string') {
    const m = POOLING_FLAGS.find(([, p]) => p === config.pooling_mode || `${p}_token` === config.pooling_mode);
    if (m) return m[1];
  }
  const on = POOLING_FLAGS.filter(([flag]) => config[flag] === true).map(([, p]) => p);
  if (on.length === 1) return on[0];
  throw new EoError(
    'ENCODER',
    `${file}: ${on.length === 0 ? 'no pooling mode is switched on' : `several pooling modes are on (${on.join(', ')}); concatenated pooling is not supported`} — pass the pooling option`,
    { file, on },
  );
}

/**
 * Check that a folder holds what the ONNX encoder needs and read its sentence-transformers layout. Throws ENCODER
 * naming the first missing file (config.json, tokenizer.json, tokenizer_config.json, the ONNX weights) and
 * CONFIG for a module we cannot reproduce (e.g. a Dense layer after pooling).
 */
export function inspectOnnxFolder(folder: string): SentenceTransformersLayout {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory())
    throw new EoError('ENCODER', `ONNX encoder folder ${folder} does not exist (expected an exported sentence-transformers model)`, { folder });
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    if (!fs.existsSync(path.join(folder, f)))
      throw new EoError('ENCODER', `ONNX encoder folder ${folder} lacks ${f} (export the model with optimum-cli export onnx; see docs/encoders-and-gpu.md)`, { folder, file: f });
  }
  const modelFile = ['onnx/model.onnx', 'model.onnx'].find((f) => fs.existsSync(path.join(folder, f)));
  if (!modelFile)
    throw new EoError('ENCODER', `ONNX encoder folder ${folder} lacks model.onnx (looked for onnx/model.onnx and model.onnx)`, { folder, file: 'model.onnx' });

  const config = readJson(path.join(folder, 'config.json')) as Record<string, unknown>;
  let pooling: OnnxPooling | null = null;
  let normalize = false;
  const modulesFile = path.join(folder, 'modules.json');
  if (fs.existsSync(modulesFile)) {
    const modules = readJson(modulesFile);
    if (!Array.isArray(modules)) throw new EoError('ENCODER', `${modulesFile}: expected a JSON array of modules`, { file: modulesFile });
    for (const m of modules as Array<{ type?: string; path?: string }>) {
      const type = String(m.type ?? '');
      if (type.endsWith('.Transformer')) continue;
      if (type.endsWith('.Normalize')) normalize = true;
      else if (type.endsWith('.Pooling')) {
        const file = path.join(folder, m.path ?? '1_Pooling', 'config.json');
        if (!fs.existsSync(file)) throw new EoError('ENCODER', `${modulesFile} names a Pooling module but ${file} is missing`, { folder, file });
        pooling = poolingFromConfig(readJson(file) as Record<string, unknown>, file);
      } else throw new EoError('CONFIG', `${modulesFile}: module type ${JSON.stringify(type)} is not supported by the ONNX encoder (only Transformer, Pooling, Normalize)`, { file: modulesFile, type });
    }
  } else {
    const file = path.join(folder, '1_Pooling', 'config.json');
    if (fs.existsSync(file)) pooling = poolingFromConfig(readJson(file) as Record<string, unknown>, file);
  }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { pooling, normalize, modelFile, hiddenSize: num(config.hidden_size), maxPositions: num(config.max_position_embeddings) };
}

/** Every regular file under `folder`, as sorted paths relative to it (hidden files skipped). */
function listFiles(folder: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(folder, rel), { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(folder, r));
    else if (e.isFile()) out.push(r);
  }
  return out.sort();
}

/**
 * 16-hex SHA-256 over every file of a model folder (relative path + size + bytes, in sorted order). It keys the
 * embedding cache through the encoder id, so replacing any weight or tokenizer file invalidates cached vectors.
 * Streams the files (a 768-d BERT is ~440 MB: about a second).
 */
export function hashModelFolder(folder: string): string {
  const h = createHash('sha256');
  const buf = Buffer.alloc(1 << 20);
  for (const rel of listFiles(folder)) {
    const file = path.join(folder, rel);
    h.update(`${rel}\0${fs.statSync(file).size}\0`);
    const fd = fs.openSync(file, 'r');
    try {
      let n: number;
      while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) h.update(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** The library file onnxruntime-node needs for CUDA (not bundled: its install script downloads it on CUDA hosts). */
export function onnxCudaProviderFile(): string | null {
  try {
    const pkg = path.dirname(require.resolve('onnxruntime-node/package.json'));
    return path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch, 'libonnxruntime_providers_cuda.so');
  } catch {
    return null;
  }
}

/** Which device runs an ONNX encoder and why (printed by `loadOnnxEncoder`). */
export interface OnnxDeviceChoice {
  device: 'cpu' | 'cuda';
  reason: string;
}

/**
 * Resolve `auto` to a device. `exists` is injectable so tests can simulate a CUDA host. Rules: a forced device
 * is used as given; `auto` picks CUDA only on linux-x64 when the CUDA provider library is present.
 */
export function chooseOnnxDevice(
  requested: 'auto' | 'cpu' | 'cuda',
  env: { platform?: string; arch?: string; providerFile?: string | null; exists?: (f: string) => boolean } = {},
): OnnxDeviceChoice {
  if (requested === 'cpu') return { device: 'cpu', reason: 'forced' };
  if (requested === 'cuda') return { device: 'cuda', reason: 'forced' };
  const platform = env.platform ?? process.platform;
  const arch = env.arch ?? process.arch;
  if (platform !== 'linux' || arch !== 'x64') return { device: 'cpu', reason: `onnxruntime-node ships CUDA for linux-x64 only (this is ${platform}-${arch})` };
  const file = env.providerFile === undefined ? onnxCudaProviderFile() : env.providerFile;
  const exists = env.exists ?? fs.existsSync;
  if (!file || !exists(file))
    return { device: 'cpu', reason: `no CUDA execution provider (${file ?? 'onnxruntime-node'} missing; install onnxruntime-node with its CUDA add-on on a GPU host)` };
  return { device: 'cuda', reason: `CUDA execution provider found (${file})` };
}

/**
 * Pool one text's token vectors (row-major `seq × hidden`, starting at `offset` in `data`) over the tokens whose
 * mask is 1, as sentence-transformers does: `cls` takes token 0; `mean` averages; `max` takes the per-dimension
 * maximum; `mean_sqrt_len` divides the sum by √(token count).
 */
export function poolTokens(
  data: Float32Array, offset: number, seq: number, hidden: number, mask: ArrayLike<number | bigint>, maskOffset: number, mode: OnnxPooling,
): Float32Array {
  const out = new Float32Array(hidden);
  if (mode === 'cls') {
    out.set(data.subarray(offset, offset + hidden));
    return out;
  }
  let count = 0;
  if (mode === 'max') out.fill(-Infinity);
  for (let t = 0; t < seq; t++) {
    if (Number(mask[maskOffset + t]) === 0) continue;
    count++;
    const row = offset + t * hidden;
    if (mode === 'max') for (let j = 0; j < hidden; j++) out[j] = Math.max(out[j], data[row + j]);
    else for (let j = 0; j < hidden; j++) out[j] += data[row + j];
  }
  if (count === 0) return out.fill(0);
  if (mode === 'mean') for (let j = 0; j < hidden; j++) out[j] /= count;
  if (mode === 'mean_sqrt_len') for (let j = 0; j < hidden; j++) out[j] /= Math.sqrt(count);
  return out;
}

/** `onnx-<folder name>-<dim>@<hash of the model files>`: changes whenever any file of the folder changes. */
export function onnxEncoderId(folder: string, dim: number, filesHash = hashModelFolder(folder)): string {
  const name = path.basename(path.resolve(folder)).replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 40);
  return `onnx-${name}-${dim}@${filesHash}`;
}

/**
 * The folder's tokenizer and model through transformers.js, on the device `requested` asks for (auto: CUDA when it
 * can start, else the CPU, saying why); a model that cannot be loaded is an ENCODER error naming the file.
 */
async function loadTokenizerAndModel(t: Transformers, folder: string, modelFile: string, subfolder: string, requested: NonNullable<OnnxEncoderOptions['device']>) {
  let tokenizer: Awaited<ReturnType<Transformers['AutoTokenizer']['from_pretrained']>>;
  try {
    tokenizer = await t.AutoTokenizer.from_pretrained(folder, { local_files_only: true });
  } catch (e) {
    throw new EoError('ENCODER', `${folder}: tokenizer cannot be loaded: ${(e as Error).message}`, { folder });
  }
  let choice = chooseOnnxDevice(requested);
  const load = (device: 'cpu' | 'cuda') =>
    t.AutoModel.from_pretrained(folder, { local_files_only: true, dtype: 'fp32', device, subfolder, model_file_name: 'model' });
  let model: Awaited<ReturnType<typeof load>>;
  try {
    model = await load(choice.device);
  } catch (e) {
    if (choice.device === 'cuda' && requested === 'auto') {
      choice = { device: 'cpu', reason: `CUDA session failed to start (${(e as Error).message.split('\n')[0]}), fell back` };
      model = await load('cpu').catch((e2) => {
        throw new EoError('ENCODER', `${folder}/${modelFile}: cannot be loaded: ${(e2 as Error).message}`, { folder });
      });
    } else throw new EoError('ENCODER', `${folder}/${modelFile}: cannot be loaded on ${choice.device}: ${(e as Error).message}`, { folder });
  }
  return { tokenizer, model, choice };
}

/**
 * Load a sentence-transformers model exported to ONNX from a local folder through transformers.js, with remote
 * loading switched off: tokenizer (tokenizer.json), BertModel-style graph (`last_hidden_state`), pooling and L2
 * normalisation as the folder's `modules.json` says. See `OnnxEncoderOptions` for defaults.
 */
export async function loadOnnxEncoder(opts: OnnxEncoderOptions): Promise<SentenceEncoder> {
  if (!opts || typeof opts.folder !== 'string' || opts.folder === '') throw new EoError('CONFIG', 'onnx encoder: folder is required (onnx:<folder>)');
  const folder = path.resolve(opts.folder);
  const layout = inspectOnnxFolder(folder);
  const pooling = opts.pooling ?? layout.pooling ?? 'mean';
  const normalize = opts.normalize ?? true;
  const batchSize = opts.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EoError('CONFIG', `onnx encoder: batchSize must be a positive integer (got ${batchSize})`);
  const verbose = opts.verbose ?? true;
  const envDevice = process.env[ONNX_DEVICE_ENV]?.trim().toLowerCase();
  const requested = opts.device ?? (envDevice ? (envDevice as OnnxEncoderOptions['device']) : 'auto')!;
  if (!['auto', 'cpu', 'cuda'].includes(requested)) throw new EoError('CONFIG', `$${ONNX_DEVICE_ENV}/device must be auto, cpu or cuda (got ${JSON.stringify(requested)})`);

  const t = transformers();
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = path.dirname(folder) + path.sep;
  const subfolder = path.dirname(layout.modelFile) === '.' ? '' : path.dirname(layout.modelFile);

  const { tokenizer, model, choice } = await loadTokenizerAndModel(t, folder, layout.modelFile, subfolder, requested);

  const tokMax = Number((tokenizer as unknown as { model_max_length?: number }).model_max_length);
  const maxTokens = opts.maxTokens ?? Math.min(512, layout.maxPositions ?? 512, Number.isFinite(tokMax) && tokMax > 0 ? tokMax : 512);

  type Encoded = { input_ids: { dims: number[] }; attention_mask: { data: ArrayLike<bigint> } };
  const runBatch = async (texts: string[]): Promise<Float32Array[]> => {
    const enc = tokenizer(texts, { padding: true, truncation: true, max_length: maxTokens }) as unknown as Encoded;
    const out = (await model(enc as never)) as { last_hidden_state?: { dims: number[]; data: Float32Array } };
    const h = out.last_hidden_state;
    if (!h) throw new EoError('ENCODER', `${folder}/${layout.modelFile}: the model has no last_hidden_state output (export it with --task feature-extraction)`);
    const [b, seq, hidden] = h.dims;
    const rows: Float32Array[] = [];
    for (let i = 0; i < b; i++) {
      const v = poolTokens(h.data, i * seq * hidden, seq, hidden, enc.attention_mask.data, i * seq, pooling);
      rows.push(normalize ? l2NormalizeInPlace(v) : v);
    }
    return rows;
  };

  // The output size comes from one real run (config.hidden_size can be absent or differ from a custom head).
  const dim = (await runBatch(['dimension probe']))[0].length;
  if (layout.hiddenSize !== null && layout.hiddenSize !== dim && verbose)
    process.stderr.write(`[eo] note: ${folder}: config hidden_size ${layout.hiddenSize} but the model outputs ${dim}\n`);
  const id = onnxEncoderId(folder, dim);
  if (verbose)
    process.stderr.write(`[eo] ONNX encoder ${id}: device ${choice.device} (${choice.reason}); pooling ${pooling}${normalize ? ', L2-normalised' : ''}; max ${maxTokens} tokens\n`);

  let disposed = false;
  return {
    id,
    dim,
    backend: `onnxruntime-${choice.device}`,
    spec: { kind: 'onnx', options: { ...opts, folder, verbose: false } },
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (disposed) throw new EoError('ENCODER', `${id}: embed() after dispose()`);
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await runBatch(texts.slice(i, i + batchSize))));
      return out;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      void (model as unknown as { dispose?: () => Promise<unknown> }).dispose?.();
    },
  };
}
