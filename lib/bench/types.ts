import type { Publication } from '../data/types';
import type { Qrels } from '../metrics/types';

export type Split = 'train' | 'test';

/** One benchmark query, written from one publication. */
export interface BenchQuery {
  /** `<publicationId>#<variant>`: stable across rebuilds with the same writer. */
  id: string;
  publicationId: string;
  text: string;
  /** Which writer produced the text, e.g. `title` or `llm:<model snapshot>`. */
  writer: string;
  /** 1-based: the paper writes two independent queries per publication. */
  variant: number;
  split: Split;
  /** Number of datasets linked to the publication (the stratification variable). */
  positives: number;
}

/** A label: the query's publication is linked to this dataset, with the link's relation kept for filtering. */
export interface BenchLabel {
  queryId: string;
  datasetId: string;
  relation: string;
}

export interface Benchmark {
  name: string;
  writer: string;
  /** Human label shown with every number built on this benchmark (says when queries are titles, not LLM text). */
  writerLabel: string;
  seed: number;
  testFraction: number;
  /** Relations used as labels; null = all. */
  relations: string[] | null;
  corpusHash: string;
  /**
   * `Corpus.dataHash` of the data it was built from (datasets, publications, links). Absent in benchmarks saved
   * before it was recorded: those are rebuilt by `loadOrBuildBenchmark` and refused by `loadBenchmark`.
   */
  dataHash?: string;
  queries: BenchQuery[];
  labels: BenchLabel[];
  /** Query ids of the stratified subset of the test split used by the costly rerank stages. */
  testSubset: string[];
  /** Strata used for the split: label → [min, max] linked datasets. */
  strata: { label: string; min: number; max: number }[];
}

/** Writes benchmark queries from a publication. */
export interface QueryWriter {
  /** Stable id, e.g. `title` or `llm:gpt-4o-2024-08-06`; stored on every query. */
  id: string;
  /** Shown with results, e.g. "publication title as query (offline writer, not the paper's LLM queries)". */
  label: string;
  /** Queries for one publication (the paper: two independent ones). */
  write(pub: Publication): Promise<string[]>;
}

/** Qrels view of a benchmark split (relevance 1 for every label). */
export interface BenchSplitView {
  queries: BenchQuery[];
  qrels: Qrels;
}
