import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkSplit } from '../bench/build';
import { benchmarkSettings, loadOrBuildBenchmark } from '../bench/export';
import { repoRoot } from '../util/paths';
import { datasetEncoderText, datasetLandingPage } from '../data/text';
import type { Corpus, DatasetRecord } from '../data/types';
import { embedCorpusCached } from '../encode/cache';
import { loadEncoder } from '../encode/registry';
import type { SentenceEncoder } from '../encode/types';
import { EoError } from '../errors';
import { analyticAlpha } from '../fuse/alpha';
import { explainFused, fuseConvexParts, type FusedScorer } from '../fuse/scorer';
import { minMaxNormalize } from '../fuse/minmax';
import { loadBestScorer } from '../fuse/best';
import { evaluateRun, summarize } from '../metrics/metrics';
import { loadOrBuildBm25 } from '../retrieve/bm25';
import { bm25Scorer, denseScorer, scoreQueries, type CorpusScorer } from '../retrieve/scorers';
import { topKHits } from '../retrieve/topk';
import { writeJsonAtomic } from '../util/fs';
import type { RankedDataset, SearchPipeline } from './types';

/** Fusion weight used when no training split is available to compute it (paper Eq. 7). */
export const DEFAULT_SERVE_ALPHA = 0.2;

/**
 * α by paper Eq. 7 on the TRAINING split of the title benchmark (`data/bench/eo-title[-sample]`, built when
 * missing): π of each scorer on the training queries, α = π_sem / (π_lex + π_sem). Cached in
 * `checkpoints/serve/alpha-<corpus hash>-<semantic id>.json`, so later starts read it.
 */
export async function trainingSplitAlpha(corpus: Corpus, lexical: CorpusScorer, semantic: CorpusScorer, opts: { sample?: boolean; cacheDir?: string } = {}): Promise<{ alpha: number; source: string }> {
  const dir = opts.cacheDir ?? path.join(repoRoot(), 'checkpoints', 'serve');
  const file = path.join(dir, `alpha-${corpus.hash}-${semantic.id}-${lexical.id}.json`);
  if (fs.existsSync(file)) {
    try {
      const v = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (typeof v.alpha === 'number' && v.alpha >= 0 && v.alpha <= 1) return { alpha: v.alpha, source: `${v.source} (cached ${path.relative(repoRoot(), file)})` };
    } catch {
      /* recompute */
    }
  }
  const bench = await loadOrBuildBenchmark(corpus, benchmarkSettings({ sample: !!opts.sample }));
  const train = benchmarkSplit(bench, 'train');
  const lex = await scoreQueries(lexical, train.queries, corpus);
  const sem = await scoreQueries(semantic, train.queries, corpus);
  const rowLex = summarize(lexical.id, evaluateRun(lex.run, train.qrels));
  const rowSem = summarize(semantic.id, evaluateRun(sem.run, train.qrels));
  const alpha = analyticAlpha(rowSem, rowLex);
  const source = `analytic (Eq. 7) on the training split of ${bench.name} (${train.queries.length} queries)`;
  writeJsonAtomic(file, { alpha, source, lexical: rowLex, semantic: rowSem, created: new Date().toISOString() });
  return { alpha, source };
}

export interface LoadSearchPipelineOptions {
  /**
   * Semantic scorer: `best` (default: the trained NN-SSC + BM25 hybrid of `loadBestScorer`, with its own α, when a
   * checkpoint and its fusion weight exist; otherwise `use-lite`), `use-lite` (cosine over the cached USE-lite corpus
   * embeddings), `none` (BM25 only), or a ready CorpusScorer; a scorer passed in should not cache query embeddings
   * on disk.
   */
  semantic?: 'best' | 'use-lite' | 'none' | CorpusScorer;
  /** Fusion weight; default: `trainingSplitAlpha` (cached), else DEFAULT_SERVE_ALPHA when that fails. */
  alpha?: number;
  /** The corpus is the 200-dataset sample (selects the sample benchmark for α). Default false. */
  sample?: boolean;
  /** Progress lines (embedding the corpus the first time, α). Default: none. */
  log?: (line: string) => void;
}

/**
 * Load everything the service needs once: the BM25 index (cached), the semantic scorer with its corpus embeddings
 * (cached), and α. Returns the pipeline plus a `dispose` for the encoder.
 */
export async function loadSearchPipeline(corpus: Corpus, opts: LoadSearchPipelineOptions = {}): Promise<SearchPipeline & { dispose: () => void }> {
  const lexical = bm25Scorer(loadOrBuildBm25(corpus));
  let semantic: CorpusScorer | null = null;
  let alphaScorer: CorpusScorer | null = null;
  let encoder: SentenceEncoder | null = null;
  let choice = opts.semantic ?? 'best';
  let bestNote = '';
  if (choice === 'best') {
    encoder = await loadEncoder();
    const best = await loadBestScorer(corpus, { encoder });
    if (best.kind === 'nnssc+bm25') {
      const fused = best.scorer as FusedScorer;
      const label = `${fused.lexicalScorer.label} + ${fused.semanticScorer.label}, α = ${fused.alpha.toFixed(3)}`;
      const enc = encoder;
      return {
        corpus, lexical: fused.lexicalScorer, semantic: fused.semanticScorer, alpha: fused.alpha, alphaSource: best.description, label,
        dispose: () => {
          best.dispose();
          enc.dispose();
        },
      };
    }
    bestNote = `; trained hybrid not used: ${best.note ?? 'unavailable'}`;
    choice = 'use-lite';
  }
  if (choice === 'use-lite') {
    encoder ??= await loadEncoder();
    const matrix = await embedCorpusCached({
      encoder, texts: corpus.datasets.map((d) => datasetEncoderText(d)), key: corpus.hash,
      onProgress: (d, t) => opts.log?.(`embedding corpus ${d}/${t}`),
    });
    semantic = denseScorer(encoder, matrix, { id: 'cosine-base', label: encoder.id.startsWith('use-lite') ? 'Cosine (USE-lite)' : `Cosine (${encoder.id})`, noCache: true });
    alphaScorer = denseScorer(encoder, matrix, { id: 'cosine-base', label: encoder.id.startsWith('use-lite') ? 'Cosine (USE-lite)' : `Cosine (${encoder.id})` });
  } else if (choice !== 'none') {
    semantic = choice;
    alphaScorer = choice;
  }
  let alpha = 0;
  let alphaSource = 'no semantic scorer';
  if (semantic) {
    if (opts.alpha !== undefined) {
      if (!(opts.alpha >= 0 && opts.alpha <= 1)) throw new EoError('INVALID_ARGUMENT', `alpha must be in [0, 1], got ${opts.alpha}`);
      alpha = opts.alpha;
      alphaSource = 'given';
    } else {
      try {
        ({ alpha, source: alphaSource } = await trainingSplitAlpha(corpus, lexical, alphaScorer!, { sample: opts.sample }));
      } catch (e) {
        alpha = DEFAULT_SERVE_ALPHA;
        alphaSource = `default ${DEFAULT_SERVE_ALPHA} (training-split α failed: ${(e as Error).message})`;
      }
    }
  }
  const label = semantic ? `${lexical.label} + ${semantic.label}, α = ${alpha.toFixed(3)}` : lexical.label;
  return { corpus, lexical, semantic, alpha, alphaSource: alphaSource + bestNote, label, dispose: () => encoder?.dispose() };
}

/** CMR concept page of a dataset. */
export function cmrConceptUrl(d: DatasetRecord): string {
  return `https://cmr.earthdata.nasa.gov/search/concepts/${encodeURIComponent(d.id)}.html`;
}

/** Earthdata Search page of a collection. */
export function earthdataSearchUrl(d: DatasetRecord): string {
  return `https://search.earthdata.nasa.gov/search/granules?p=${encodeURIComponent(d.id)}`;
}

/**
 * Rank the corpus for one query: lexical and semantic scores over every dataset, min-max normalised and fused
 * convexly (`fuseConvexParts`, the same numbers as `fuseConvex`), top k; each result keeps both contributions
 * (`explainFused`) so the page can say why it is there.
 * Datasets with a zero fused score are dropped.
 */
export async function rankDatasets(p: SearchPipeline, query: string, k: number): Promise<{ results: RankedDataset[]; lexicalMs: number; semanticMs: number; fuseMs: number }> {
  const t0 = performance.now();
  const [lex] = await p.lexical.scoreBatch([query]);
  const t1 = performance.now();
  const sem = p.semantic ? (await p.semantic.scoreBatch([query]))[0] : null;
  const t2 = performance.now();
  const ids = p.corpus.datasets.map((d) => d.id);
  // fused scores with their parts (the same numbers as fuseConvex), or BM25 alone
  const parts = sem ? fuseConvexParts(sem, lex, p.alpha) : null;
  const lexN = parts ? null : minMaxNormalize(lex);
  const hits = topKHits(parts ? parts.scores : lex, k, ids).filter((h) => h.score > 0);
  const t3 = performance.now();
  const results: RankedDataset[] = hits.map((h, i) => {
    const d = p.corpus.datasets[h.index];
    const x = parts ? explainFused(parts, h.index) : null;
    const lc = x ? x.lexical : lex[h.index];
    const sc = x ? x.semantic : 0;
    const total = lc + sc;
    const stage: RankedDataset['stage'] = !x || lc >= (2 / 3) * total ? 'bm25' : sc >= (2 / 3) * total ? 'semantic' : 'both';
    const why = !x
      ? `BM25 ${lex[h.index].toFixed(3)} (query terms in its metadata)`
      : `BM25 contributes ${lc.toFixed(3)} (${total > 0 ? Math.round((100 * lc) / total) : 0}%), semantic ${sc.toFixed(3)} (${total > 0 ? Math.round((100 * sc) / total) : 0}%)` +
        (lex[h.index] === 0 ? ': no query term matched, found by meaning' : '');
    return {
      rank: i + 1, id: d.id, shortName: d.shortName, longName: d.longName, daac: d.daac,
      temporal: { start: d.temporalStart, end: d.temporalEnd }, score: h.score,
      components: {
        lexical: { scorer: p.lexical.id, raw: lex[h.index], normalized: x ? x.lexicalNormalized : lexN![h.index], contribution: lc },
        semantic: x ? { scorer: p.semantic!.id, raw: x.rawSemantic, normalized: x.semanticNormalized, contribution: sc } : null,
      },
      stage, why,
      links: { detail: `/dataset/${encodeURIComponent(d.id)}`, landingPage: datasetLandingPage(d), earthdataSearch: earthdataSearchUrl(d), cmr: cmrConceptUrl(d) },
    };
  });
  return { results, lexicalMs: t1 - t0, semanticMs: t2 - t1, fuseMs: t3 - t2 };
}
