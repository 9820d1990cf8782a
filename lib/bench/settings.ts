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

