/**
 * Score parts of a run's top results (why each dataset has its score), carried beside the run and written as a
 * sidecar `<id>.<split>.parts.json` next to its TREC run file (`writeRunFiles`); the report site's run explorer
 * shows them per result. The run that makes them (fusion, query rules, a rerank backbone) attaches them with
 * `setRunScoreParts`; a run built any other way has none, and the run itself (a plain Map) is unchanged, so
 * metrics, equality and TREC files are what they were.
 */
import * as fs from 'node:fs';
import { writeFileAtomic } from '../util/fs';
import type { Run } from './types';

/** How many results per query carry their parts (the run explorer shows a top-10). */
export const RUN_PARTS_TOP_K = 10;

/** Why one dataset has its score in one query's run; every field optional (a run fills what it knows). */
export interface RunScoreParts {
  /** Convex fusion: the min-max-normalised lexical (BM25) score ŝ_lex in [0, 1]; RRF: its term 1 / (k + rank). */
  bm25?: number;
  /** Convex fusion: the min-max-normalised semantic score ŝ_sem in [0, 1]; RRF: its term 1 / (k + rank). */
  semantic?: number;
  /** The lexical (BM25) scorer's own score before normalisation. */
  bm25Raw?: number;
  /** The semantic scorer's own score (cosine, NN-SSC) before normalisation. */
  semanticRaw?: number;
  /** Weight of the semantic part in a convex fusion (Eq. 6). */
  alpha?: number;
  /** RRF's k, when the run is a reciprocal rank fusion. */
  rrfK?: number;
  /** The dataset's rank in the retrieval list a reranker reordered. */
  retrievalRank?: number;
  /** The query rules that moved the dataset (period/place coverage, lacking named identifiers), each with its factor. */
  constraints?: string[];
  /** Product of the rule factors applied to the score (1: not moved; 0: filtered). */
  factor?: number;
}

/** Parts by query id, then dataset id. */
export type RunPartsTable = Record<string, Record<string, RunScoreParts>>;

const partsOfRun = new WeakMap<Run, RunPartsTable | (() => RunPartsTable)>();

/**
 * Attach the parts of `run`'s top results (replaces earlier ones); returns the run. `parts` may be a function: it is
 * called once, when the parts are first read (`runScoreParts`), so that runs nobody writes or shows (a Try-it
 * curve's α grid, a backbone whose scores alone are used) cost nothing. Its inputs must not change after the call.
 */
export function setRunScoreParts(run: Run, parts: RunPartsTable | (() => RunPartsTable)): Run {
  partsOfRun.set(run, parts);
  return run;
}

/** The parts attached to `run`, or undefined when the run carries none. */
export function runScoreParts(run: Run): RunPartsTable | undefined {
  const parts = partsOfRun.get(run);
  if (typeof parts !== 'function') return parts;
  const table = parts();
  partsOfRun.set(run, table);
  return table;
}

/** The parts sidecar's file name beside `<id>.<split>.run`. */
export function runPartsFile(runFile: string): string {
  return runFile.replace(/\.run$/, '') + '.parts.json';
}

/** What the sidecar holds. */
export interface RunPartsSidecar {
  system: string;
  split: string;
  /** Results per query with parts. */
  topK: number;
  queries: RunPartsTable;
}

/**
 * Write the parts sidecar of a run file when the run carries parts; remove a stale one when it carries none (so
 * that a sidecar always belongs to the run beside it). Returns the sidecar path, or null.
 */
export function writeRunPartsSidecar(runFile: string, run: Run, system: string, split: string): string | null {
  const file = runPartsFile(runFile);
  const parts = runScoreParts(run);
  if (!parts) {
    fs.rmSync(file, { force: true });
    return null;
  }
  const body: RunPartsSidecar = { system, split, topK: RUN_PARTS_TOP_K, queries: parts };
  writeFileAtomic(file, JSON.stringify(body) + '\n');
  return file;
}

/** Read a parts sidecar (null when absent or unreadable: the explorer then shows scores only). */
export function readRunPartsSidecar(file: string): RunPartsSidecar | null {
  if (!fs.existsSync(file)) return null;
  try {
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as RunPartsSidecar;
    return body && typeof body.queries === 'object' && body.queries !== null ? body : null;
  } catch {
    return null;
  }
}
