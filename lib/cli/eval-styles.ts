/**
 * `eo eval --system NAME --bench styles [--split dev|test] [--no-rules] [--json]`: one system on the shipped benchmark
 * of real query styles (lib/bench/styles), per style and overall, beside BM25 alone and the strong short baseline
 * BM25-stop alone, each with paired 95% CIs. The system
 * ranks as `eo search` does (the query rules on) unless `--no-rules`. The test half is for reporting: tune on dev.
 */
import * as path from 'node:path';
import { buildStyleBenchmark } from '../bench/styles/build';
import type { Corpus } from '../data/types';
import { GRADED_METRIC_NAMES } from '../metrics/graded';
import { writeTrecQrels, writeTrecRun } from '../metrics/trec';
import { loadOrBuildBm25 } from '../retrieve/bm25';
import { bm25StopScorer, buildBm25Stop } from '../retrieve/bm25-stop';
import { bm25Scorer } from '../retrieve/scorers';
import { createSearchEngine } from '../search/engine';
import { styleRowsAgainst, styleRuns, type StyleRow } from '../study/style-eval';
import type { SearchEngine } from '../search/types';

export async function runStyleEval(corpus: Corpus, engine: SearchEngine, o: { system: string; split: 'dev' | 'test'; rules: boolean; json: boolean; out: string }): Promise<(StyleRow & { vsBm25Stop?: StyleRow['vsReference'] })[]> {
  const bench = buildStyleBenchmark(corpus);
  const queries = bench.queries.filter((q) => q.split === o.split).map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const qrels = new Map(queries.map((q) => [q.id, bench.qrels.get(q.id)!]));
  // two references, whatever lexical half the evaluated engine has: the paper's BM25 alone, and the strong short
  // baseline bm25-stop alone (a learned part must beat both to earn its place)
  const bm25 = createSearchEngine(corpus, { lexical: bm25Scorer(loadOrBuildBm25(corpus), 'bm25', 'BM25'), semantic: null, identifierRule: { mode: 'off' } });
  const bm25Stop = createSearchEngine(corpus, { lexical: bm25StopScorer(buildBm25Stop(corpus)), semantic: null, identifierRule: { mode: 'off' } });
  const label = `${engine.label} [eo eval --system ${o.system}${o.rules ? '' : ' --no-rules'}]`; // never a reference's label
  const runs = await styleRuns([{ label: 'BM25', engine: bm25, rules: false }, { label: 'BM25-stop', engine: bm25Stop, rules: false }, { label, engine, rules: o.rules }], queries);
  const withStop = styleRowsAgainst(runs, queries, qrels, ['BM25', 'BM25-stop']).map(({ vs, ...r }) => ({
    ...r, ...(vs.BM25 ? { vsReference: vs.BM25 } : {}), ...(vs['BM25-stop'] ? { vsBm25Stop: vs['BM25-stop'] } : {}),
  }));
  writeTrecRun(path.join(o.out, `${o.system}.styles-${o.split}.run`), runs.get(label)!, o.system);
  writeTrecQrels(path.join(o.out, `qrels.styles-${o.split}.trec`), qrels);
  if (o.json) process.stdout.write(JSON.stringify({ split: o.split, queries: queries.length, droppedTopics: bench.droppedTopics.length, references: ['BM25', 'BM25-stop'], rows: withStop }, null, 2) + '\n');
  else {
    const f = (x: number) => x.toFixed(4);
    const delta = (d?: { diff: number; low: number; high: number }) => (d ? `${d.diff >= 0 ? '+' : ''}${d.diff.toFixed(3)} [${d.low.toFixed(3)}, ${d.high.toFixed(3)}]` : '');
    process.stdout.write(['system', 'style', 'n', ...GRADED_METRIC_NAMES, 'ΔnDCG@10 vs BM25 [95% CI]', 'ΔnDCG@10 vs BM25-stop [95% CI]'].join('\t') + '\n');
    for (const r of withStop) process.stdout.write([r.system, r.style, r.n, ...GRADED_METRIC_NAMES.map((m) => f(r.metrics[m])), delta(r.vsReference?.['nDCG@10']), delta(r.vsBm25Stop?.['nDCG@10'])].join('\t') + '\n');
  }
  return withStop;
}
