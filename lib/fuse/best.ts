import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Corpus } from '../data/types';
import { repoRoot } from '../util/paths';
import { EoError } from '../errors';
import { findEmbeddingCache } from '../encode/cache';
import { datasetEncoderText } from '../data/text';
import { loadEncoder } from '../encode/registry';
import type { SentenceEncoder } from '../encode/types';
import { fusedScorer, type FusedScorer } from './scorer';
import { CHECKPOINT_JSON, readCheckpointManifest } from '../store/checkpoint';
import { loadNnsscCheckpoint } from '../retrieve/nnssc';
import { writeJsonAtomic } from '../util/fs';
import { loadOrBuildBm25 } from '../retrieve/bm25';
import { NNSSC_KIND, nnsscScorer } from '../retrieve/nnssc';
import { bm25Scorer, type CorpusScorer } from '../retrieve/scorers';

/** `<checkpoint>/hybrid.json`: the fusion weight of NN-SSC + BM25, set on the training split (notebook 05-fusion). */
export const HYBRID_CONFIG_FILE = 'hybrid.json';

export interface HybridConfig {
  /** Weight of the semantic (NN-SSC) part. */
  alpha: number;
  /** How α was set, e.g. `analytic (Eq. 7)`. */
  method: string;
  lexical: 'bm25';
  /** SHA-256 of the checkpoint's weights.bin the α was computed for (a retrained model invalidates it). */
  weightsSha256: string;
  corpusHash: string;
  /** π of each scorer on the training split. */
  piSemantic?: number;
  piLexical?: number;
  created: string;
}

/** Save the fusion weight beside an NN-SSC checkpoint (atomically). */
export function saveHybridConfig(checkpointDir: string, cfg: Omit<HybridConfig, 'weightsSha256' | 'created' | 'lexical'>): HybridConfig {
  const m = readCheckpointManifest(checkpointDir);
  const full: HybridConfig = { ...cfg, lexical: 'bm25', weightsSha256: m.weights.sha256, created: new Date().toISOString() };
  writeJsonAtomic(path.join(checkpointDir, HYBRID_CONFIG_FILE), full);
  return full;
}

/** The fusion weight saved beside a checkpoint, or null (absent, unreadable, or for other weights). */
export function readHybridConfig(checkpointDir: string): HybridConfig | null {
  const f = path.join(checkpointDir, HYBRID_CONFIG_FILE);
  if (!fs.existsSync(f)) return null;
  try {
    const h = JSON.parse(fs.readFileSync(f, 'utf8')) as HybridConfig;
    const m = readCheckpointManifest(checkpointDir);
    if (h.weightsSha256 !== m.weights.sha256 || !(h.alpha >= 0 && h.alpha <= 1)) return null;
    return h;
  } catch {
    return null;
  }
}

/** NN-SSC checkpoint folders under `<repo>/checkpoints/nnssc` trained on this corpus, newest first. */
export function findNnsscCheckpoints(corpus: Corpus, root = path.join(repoRoot(), 'checkpoints', 'nnssc')): string[] {
  if (!fs.existsSync(root)) return [];
  const found: { dir: string; created: string }[] = [];
  for (const name of fs.readdirSync(root)) {
    const dir = path.join(root, name);
    if (!fs.existsSync(path.join(dir, CHECKPOINT_JSON))) continue;
    try {
      const m = readCheckpointManifest(dir);
      if (m.kind === NNSSC_KIND && m.config.corpusHash === corpus.hash) found.push({ dir, created: m.created });
    } catch {
      /* a corrupt checkpoint is simply not a candidate */
    }
  }
  return found.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0)).map((f) => f.dir);
}

export interface BestScorer {
  scorer: CorpusScorer;
  /** One line for humans: which system answers and why. */
  description: string;
  kind: 'nnssc+bm25' | 'bm25';
  /** Why the trained hybrid is not used (only for kind 'bm25'). */
  note?: string;
  /** Fusion weight (hybrid only). */
  alpha?: number;
  /**
   * The hybrid itself (hybrid only): `fused.scoreBatchExplained(texts)` + `explainFused(f, i)` give each dataset's
   * semantic and lexical contribution ("why is this result here").
   */
  fused?: FusedScorer;
  checkpoint?: string;
  /** Free the encoder and backend memory. */
  dispose(): void;
}

export interface LoadBestScorerOptions {
  /** A specific NN-SSC checkpoint folder. Default: the newest one for this corpus under checkpoints/nnssc. */
  checkpointDir?: string;
  /** Encoder (default: `loadEncoder()`: $EO_ENCODER, else USE-lite, loaded here). Must be the one the checkpoint was trained with. */
  encoder?: SentenceEncoder;
}

/**
 * The best retrieval system available for this corpus: NN-SSC + BM25 (min-max convex fusion, α from
 * hybrid.json) when a trained NN-SSC checkpoint, its fusion weight and the cached corpus embeddings exist;
 * otherwise BM25, with a note saying what is missing and which notebook makes it. Never embeds the corpus.
 */
export async function loadBestScorer(corpus: Corpus, opts: LoadBestScorerOptions = {}): Promise<BestScorer> {
  const bm25 = bm25Scorer(loadOrBuildBm25(corpus), 'bm25', 'BM25');
  const fallback = (note: string): BestScorer => ({ scorer: bm25, description: `BM25 (${note})`, kind: 'bm25', note, dispose() {} });
  const dir = opts.checkpointDir ?? findNnsscCheckpoints(corpus)[0];
  if (!dir) return fallback('no NN-SSC checkpoint for this corpus; run notebook 04-nnssc');
  const hybrid = readHybridConfig(dir);
  if (!hybrid) return fallback(`no fusion weight for ${path.relative(repoRoot(), dir)}; run notebook 05-fusion`);
  let owned: SentenceEncoder | null = null;
  try {
    const manifest = readCheckpointManifest(dir);
    const encoderId = String(manifest.config.encoderId ?? '');
    const encoder = opts.encoder ?? (owned = await loadEncoder());
    if (encoder.id !== encoderId) throw new EoError('CACHE_MISMATCH', `checkpoint was trained on ${encoderId}, encoder is ${encoder.id}`);
    const { model } = loadNnsscCheckpoint(dir, { encoderId: encoder.id, corpusHash: corpus.hash });
    const cached = findEmbeddingCache({ encoderId: encoder.id, dim: encoder.dim, texts: corpus.datasets.map((d) => datasetEncoderText(d)), key: corpus.hash });
    if (!cached) throw new EoError('DATA_NOT_FOUND', `corpus embeddings of ${encoder.id} are not cached; run notebook 02-baselines`);
    const sem = nnsscScorer(encoder, cached.matrix, model, { id: 'nnssc', label: 'NN-SSC', noCache: true });
    const scorer = fusedScorer(sem, bm25, hybrid.alpha, { id: 'nnssc+bm25', label: `NN-SSC + BM25 (α=${hybrid.alpha.toFixed(3)}, ${hybrid.method})` });
    return {
      scorer,
      description: `NN-SSC + BM25, α=${hybrid.alpha.toFixed(3)} (${hybrid.method}); checkpoint ${path.relative(repoRoot(), dir)}`,
      kind: 'nnssc+bm25',
      alpha: hybrid.alpha,
      fused: scorer,
      checkpoint: dir,
      dispose() {
        sem.dispose();
        owned?.dispose();
      },
    };
  } catch (e) {
    owned?.dispose();
    return fallback(`NN-SSC checkpoint ${path.relative(repoRoot(), dir)} not usable: ${(e as Error).message.split('\n')[0]}`);
  }
}
