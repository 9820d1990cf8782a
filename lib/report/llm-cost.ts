/**
 * The LLM study's cost table for notebooks and `eo llm plan`: prompt sizes measured on a corpus with the real
 * prompt builders, the paper's stages, and the plan formatted as markdown.
 */
import type { Benchmark } from '../bench/types';
import type { Corpus, DatasetRecord } from '../data/types';
import { loadQueryWriterPrompt, queryWriterMessages } from '../bench/writers';
import { estimateCallTokens, formatCostPlan, llmCostPlan, paperPlanStages, UNKNOWN_RECORDED_NOTE, type CostPlanRow, type PaperPlanOptions, type PromptSizes } from '../llm/plan';
import type { ChatRequest, ModelConfig, RecordStore } from '../llm/types';
import { judgeMessages, loadJudgePrompt } from '../judge/judge';
import { listwiseMessages } from '../rerank/listwise';
import { loadListwisePrompt } from '../rerank/prompt';
import type { RerankCandidate } from '../rerank/types';

/** A typical paper query: "I want to …", at most 60 words (≈ 350 characters). */
const TYPICAL_QUERY = `I want to ${'estimate glacier debris thickness from elevation change data '.repeat(6)}`.slice(0, 350);

/**
 * Average prompt sizes of the paper's stages on a corpus, measured on the real prompt builders: the listwise prompt
 * with windows of 10 consecutive datasets and a typical 350-character query; the writer prompt over every
 * publication with an abstract; the judge prompt over every dataset with the same query.
 */
export function paperPromptSizes(corpus: Corpus): PromptSizes {
  const lw = loadListwisePrompt();
  const wr = loadQueryWriterPrompt();
  const jd = loadJudgePrompt();
  const tokens = (messages: ChatRequest['messages']) => estimateCallTokens({ messages, tools: [], temperature: 0, maxTokens: null, sample: 0 }, 0).inputTokens;
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : Math.round(xs.reduce((a, b) => a + b, 0) / xs.length));
  const cand = (d: DatasetRecord, i: number): RerankCandidate => ({ id: d.id, record: d, retrievalScore: 0, retrievalRank: i + 1, scores: {} }) as unknown as RerankCandidate;
  const listwise: number[] = [];
  for (let i = 0; i + 10 <= corpus.datasets.length; i += 10) listwise.push(tokens(listwiseMessages(lw, { id: 'q', text: TYPICAL_QUERY }, corpus.datasets.slice(i, i + 10).map(cand))));
  const writer = corpus.publications.filter((p) => p.abstract).map((p) => tokens(queryWriterMessages(p, wr)));
  const judge = corpus.datasets.map((d) => tokens(judgeMessages(jd, TYPICAL_QUERY, d)));
  return { listwiseInputTokens: mean(listwise), writerInputTokens: mean(writer), judgeInputTokens: mean(judge) };
}

/**
 * The paper's cost plan on a corpus as a markdown table (for the top of the LLM notebooks): `queries` test queries
 * (200: the paper's subset), the paper's rerankers, agentic models and judge unless `stages` options say otherwise.
 */
export function paperCostPlanTable(corpus: Corpus, opts: Omit<PaperPlanOptions, 'sizes'> & { models: readonly ModelConfig[]; store?: RecordStore | null; title?: string }): string {
  const rows = llmCostPlan(paperPlanStages({ ...opts, sizes: paperPromptSizes(corpus) }), { models: opts.models, store: opts.store });
  return formatCostPlan(rows, opts.title ?? `LLM cost plan: ${opts.queries} queries`);
}

/** One cost plan of the LLM notebooks: its title, query count and rows. */
export interface NamedCostPlan {
  title: string;
  queries: number;
  rows: CostPlanRow[];
}

/**
 * The cost plans shown at the top of notebooks 06/07 (the `eo llm plan` table): the paper's N = 200 sweep and the
 * full test split of `bench` (each: the five listwise rerankers, the two agentic ones, the judge over the top 20),
 * with the calls already in `store` counted as recorded. Prompt sizes are measured once on the corpus.
 */
export function notebookCostPlans(corpus: Corpus, bench: Pick<Benchmark, 'queries'>, opts: { models: readonly ModelConfig[]; store?: RecordStore | null }): NamedCostPlan[] {
  const sizes = paperPromptSizes(corpus);
  const testQueries = bench.queries.filter((q) => q.split === 'test').length;
  return [
    { title: "the paper's N = 200 sweep", queries: 200 },
    { title: `the full test split (${testQueries.toLocaleString('en-US')} queries)`, queries: testQueries },
  ].map((p) => ({ ...p, rows: llmCostPlan(paperPlanStages({ queries: p.queries, sizes }), { models: opts.models, store: opts.store }) }));
}

/** A cost plan as display rows (USD rounded to cents, `*` on unchecked prices) with a total row. */
export function costPlanRows(rows: readonly CostPlanRow[]): Record<string, string | number>[] {
  const usd = (n: number) => Math.round(n * 100) / 100;
  const out: Record<string, string | number>[] = rows.map((r) => ({
    model: `${r.model}${r.pricesToBeChecked ? '*' : ''}`, stage: r.stage, calls: r.calls, recorded: r.recorded ?? '–',
    'input tokens': r.inputTokens, 'output tokens': r.outputTokens, 'standard $': usd(r.standardUsd), 'batch $': r.batchApi === 'none' || r.batchUsd === null ? 'live only' : usd(r.batchUsd),
  }));
  const sum = (f: (r: CostPlanRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  out.push({
    model: 'total', stage: '', calls: sum((r) => r.calls), recorded: rows.every((r) => r.recorded === null) ? '–' : sum((r) => r.recorded ?? 0), 'input tokens': sum((r) => r.inputTokens), 'output tokens': sum((r) => r.outputTokens),
    'standard $': usd(sum((r) => r.standardUsd)), 'batch $': usd(sum((r) => r.batchUsd ?? r.standardUsd)),
  });
  return out;
}

/** The footnote of a cost plan table: unchecked prices, what the batch column means, how tokens were estimated. */
export function costPlanNote(rows: readonly CostPlanRow[]): string {
  return [
    rows.some((r) => r.pricesToBeChecked) ? '* placeholder prices (pricesToBeChecked in lib/llm/models.json): check before quoting.' : '',
    rows.some((r) => r.recorded === null) ? UNKNOWN_RECORDED_NOTE : '',
    'Costs cover calls not yet recorded; "live only": no batch API for the model or stage (batch total adds their standard cost).',
    'Tokens: prompts measured on this corpus with the real prompt builders (4 characters per token); answers estimated per stage.',
  ].filter((x) => x !== '').join(' ');
}
