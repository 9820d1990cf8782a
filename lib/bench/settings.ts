/**
 * The benchmark settings every stage shares (paper §4): split and subset seed 42, 20 % of the publications in the
 * test split, a stratified subset of 200 test queries for the costly rerank stages, every link relation a label.
 * `buildBenchmark`, `loadOrBuildBenchmark`, `benchmarkSettings`, `eo bench build` and the notebooks all take their defaults from here.
 */
export const BENCHMARK_DEFAULTS = Object.freeze({
  seed: 42,
  testFraction: 0.2,
  subsetSize: 200,
  relations: null as string[] | null,
});

/**
 * NASA-EO-Bench as the paper reports it (§4): 8,058 datasets, 21,272 queries split 17,038 train / 4,234 test, 2.24
 * labelled datasets per query on average, 47,654 (query, dataset) pairs, the N = 200 rerank subset. The one home of
 * these sizes: the scale model (bench/paper-scale.cjs) and the notebooks' comparisons read them here.
 */
export const NASA_EO_BENCH = Object.freeze({
  datasets: 8058,
  queries: 21272,
  train: 17038,
  test: 4234,
  labelsPerQuery: 2.24,
  pairs: 47654,
  rerankSubset: 200,
});
