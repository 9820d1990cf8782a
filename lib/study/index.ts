/**
 * The experiment harness of the notebooks and benches: what studies the query path rather than serving it. A scorer
 * over both splits and a hybrid with its α set on the training split (`retrieveSplits`, `studyHybrid`), the style
 * benchmark's runs and rows (`styleRuns`, `styleRows`), the corpus-self-supervised scorers' rows, the rerank
 * experiment's inputs (`prepareRerankExperiment`, the hybrid backbone) and the listwise order's position bias.
 */
export * from './study';
export * from './hybrid-backbone';
export * from './experiment';
export * from './self-supervised';
export * from './style-eval';
export * from './position-bias';
