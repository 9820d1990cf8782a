/**
 * The LLM study's cost table for notebooks and `eo llm plan`: prompt sizes measured on a corpus with the real
 * prompt builders, the paper's stages, and the plan formatted as markdown.
 */
import type { Corpus, DatasetRecord } from '../data/types';
import { loadQueryWriterPrompt, queryWriterMessages } from '../bench/writers';
import { estimateCallTokens, formatCostPlan, llmCostPlan, paperPlanStages, type PaperPlanOptions, type PromptSizes } from '../llm/plan';
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
