/**
 * Cost before spending: per model and stage, the calls a run would make, estimated input/output tokens, the
 * standard and batch cost from the models file's prices, and how many of the calls are already recorded.
 * Token counts are estimates (4 characters per token for prompts; answers from the stage's typical answer plus the
 * entry's `estimatedReasoningTokens`); prices marked `pricesToBeChecked` are flagged in every table.
 */
import { batchApiOf, batchCallCostUsd, callCostUsd, getModelConfig } from './models';
import type { BatchApi, LlmRecord, ModelConfig, RecordStore } from './types';

/** Rough token count of a text (4 characters per token). */
export function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Estimated tokens of one normalised request: prompt (messages + tools) and the given answer length. */
export function estimateCallTokens(req: LlmRecord['request'], outputTokens: number): { inputTokens: number; outputTokens: number } {
  return { inputTokens: roughTokens(JSON.stringify(req.messages) + (req.tools.length > 0 ? JSON.stringify(req.tools) : '')), outputTokens: outputTokens };
}

/** Output tokens assumed as the worst case of a call that sets no token limit (the API then has none we can read). */
export const WORST_CASE_UNLIMITED_OUTPUT_TOKENS = 4096;

/**
 * The most output tokens one call can be billed for, the budget's measure (never the expected answer length: a run
 * stopped on estimates overspent when answers carried thousands of reasoning tokens): its token limit (reasoning
 * tokens count against it), else the larger of WORST_CASE_UNLIMITED_OUTPUT_TOKENS and the entry's reasoning estimate.
 */
export function worstCaseOutputTokens(config: Pick<ModelConfig, 'estimatedReasoningTokens'>, req: Pick<LlmRecord['request'], 'maxTokens'>): number {
  return req.maxTokens ?? Math.max(WORST_CASE_UNLIMITED_OUTPUT_TOKENS, 64 + (config.estimatedReasoningTokens ?? 0));
}

/** The tokens of one request at its worst case (`estimateCallTokens` with `worstCaseOutputTokens`): what every budget check prices. */
export function worstCaseCallTokens(config: Pick<ModelConfig, 'estimatedReasoningTokens'>, req: LlmRecord['request']): { inputTokens: number; outputTokens: number } {
  return estimateCallTokens(req, worstCaseOutputTokens(config, req));
}

/** One (stage, model) line of work to plan. */
export interface PlanStage {
  /** `writer`, `listwise`, `agentic`, `judge`, or any label. */
  stage: string;
  configId: string;
  calls: number;
  /** Estimated prompt tokens per call. */
  inputTokensPerCall: number;
  /** Estimated visible answer tokens per call (the entry's estimatedReasoningTokens are added). */
  answerTokensPerCall: number;
  /**
   * Record keys of the calls (`llmRecordKey`), when known: `recorded` counts these keys in the store. Without them
   * nothing is counted as recorded (`recorded: null`): another run's recordings of the same model and stage (another
   * corpus, other queries) say nothing about this one's.
   */
  keys?: string[];
  /** Free text shown in the table (how the numbers were estimated). */
  note?: string;
  /** Whether the calls can go through a batch API (false for multi-turn agentic loops). Default true. */
  batchable?: boolean;
}

export interface CostPlanRow {
  model: string;
  stage: string;
  calls: number;
  /** Calls of this run already in the record store (they cost nothing to rerun); null: the run's keys are not known here (and the store is not empty). */
  recorded: number | null;
  inputTokens: number;
  outputTokens: number;
  /** Cost of the calls not yet recorded at standard prices (USD). */
  standardUsd: number;
  /** The same at batch prices; null when the model has no batch API or no batch price. */
  batchUsd: number | null;
  /** The batch protocol the calls would use (`none`: the model has none, or the stage cannot be batched). */
  batchApi: BatchApi;
  pricesToBeChecked: boolean;
  note: string;
}

/**
 * The cost plan of `stages` (see the module comment). `recorded` counts the stage's keys found in the store (distinct
 * keys), null for a stage without keys (0 when the store is absent or empty). Costs cover only the calls not yet recorded (all of them when unknown).
 */
export function llmCostPlan(stages: readonly PlanStage[], opts: { models: readonly ModelConfig[]; store?: RecordStore | null }): CostPlanRow[] {
  return stages.map((s) => {
    const config = getModelConfig(s.configId, opts.models);
    // an absent or empty store holds none of the run's calls, keys known or not
    const recorded = s.keys ? [...new Set(s.keys)].filter((k) => opts.store?.has(k) ?? false).length : !opts.store || opts.store.size() === 0 ? 0 : null;
    const toRun = Math.max(0, s.calls - (recorded ?? 0));
    const perCallOut = s.answerTokensPerCall + (config.estimatedReasoningTokens ?? 0);
    const usage = { inputTokens: s.inputTokensPerCall * toRun, outputTokens: perCallOut * toRun };
    const api = s.batchable === false ? 'none' : batchApiOf(config);
    return {
      model: config.id,
      stage: s.stage,
      calls: s.calls,
      recorded,
      inputTokens: s.inputTokensPerCall * s.calls,
      outputTokens: perCallOut * s.calls,
      standardUsd: callCostUsd(config, usage),
      batchUsd: api === 'none' ? null : batchCallCostUsd(config, usage),
      batchApi: api,
      pricesToBeChecked: config.pricesToBeChecked === true,
      note: s.note ?? '',
    };
  });
}

function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
/** The footnote of a plan with stages whose keys are unknown (`recorded: null`, shown as –). */
export const UNKNOWN_RECORDED_NOTE =
  'recorded –: the calls\' request keys are not known here, so no recording is counted and the cost assumes every call is new (recordings of the same model and stage may come from another corpus or other queries); `eo llm plan --exact` builds the run\'s requests, as `eo llm batch` does, and counts exactly.';

function fmtRecorded(n: number | null): string {
  return n === null ? '–' : fmtInt(n);
}

function fmtUsd(n: number | null): string {
  return n === null ? 'n/a' : `$${n < 10 ? n.toFixed(2) : fmtInt(n)}`;
}

/** A markdown table of a cost plan with a total line; models with unchecked prices get a `*`. */
export function formatCostPlan(rows: readonly CostPlanRow[], title?: string): string {
  const head = '| model | stage | calls | recorded | input tokens | output tokens | standard | batch |\n|---|---|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) => `| ${r.model}${r.pricesToBeChecked ? '*' : ''} | ${r.stage} | ${fmtInt(r.calls)} | ${fmtRecorded(r.recorded)} | ${fmtInt(r.inputTokens)} | ${fmtInt(r.outputTokens)} | ${fmtUsd(r.standardUsd)} | ${r.batchApi === 'none' ? 'live only' : fmtUsd(r.batchUsd)} |`,
  );
  const sum = (f: (r: CostPlanRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  // batch total: batch price where there is one, standard otherwise (what a --batch run pays)
  const batchTotal = sum((r) => r.batchUsd ?? r.standardUsd);
  lines.push(`| **total** | | ${fmtInt(sum((r) => r.calls))} | ${rows.every((r) => r.recorded === null) ? '–' : fmtInt(sum((r) => r.recorded ?? 0))} | ${fmtInt(sum((r) => r.inputTokens))} | ${fmtInt(sum((r) => r.outputTokens))} | ${fmtUsd(sum((r) => r.standardUsd))} | ${fmtUsd(batchTotal)} |`);
  const notes = [...new Set(rows.map((r) => r.note).filter((n) => n !== ''))];
  const foot = [
    rows.some((r) => r.pricesToBeChecked) ? '`*` placeholder prices marked pricesToBeChecked in lib/llm/models.json: check them before quoting a cost.' : '',
    rows.some((r) => r.recorded === null) ? UNKNOWN_RECORDED_NOTE : '',
    'Costs cover the calls not yet recorded; the batch column uses batch prices where the model has a batch API and the stage is single-shot ("live only": DeepSeek and a local vLLM have no batch API, agentic loops are multi-turn); its total adds the standard cost of the live-only rows.',
    ...notes,
  ].filter((x) => x !== '');
  return [title ? `### ${title}\n` : '', head, ...lines, '', ...foot.map((f) => `- ${f}`)].join('\n').trim() + '\n';
}

/** Average prompt sizes of the paper's stages on a corpus (characters → tokens), from `promptSizeStats`. */
export interface PromptSizes {
  /** Listwise prompt of a window of 10 (system + user, query included). */
  listwiseInputTokens: number;
  /** Writer prompt (system + user with an abstract). */
  writerInputTokens: number;
  /** Judge prompt (system + user with a query and a dataset summary). */
  judgeInputTokens: number;
}

export interface PaperPlanOptions {
  /** Test queries reranked (the paper's subset: 200; the full test split: 4,234). */
  queries: number;
  /** Listwise rerankers. Default: the paper's five (gpt-5.5, gpt-5.4, o4-mini, claude-opus-4-7, deepseek-v4-pro). */
  rerankers?: string[];
  /** Agentic rerankers. Default: the paper's two (claude-opus-4-7, deepseek-v4-pro). */
  agentic?: string[];
  /** Writer calls (publications × 2 samples); 0 leaves the writer out. Default 0. */
  writerCalls?: number;
  /** Writer model. Default gpt-5.4-writer. */
  writer?: string;
  /** Judge model; null leaves the judge out. Default qwen3.6-35b-a3b-judge. */
  judge?: string | null;
  /** Judged depth per query (P@20). Default 20. */
  judgeDepth?: number;
  /** Model turns per agentic query. Default 4 (tool-call rates of 41–99.5% with a few tool rounds each). */
  agenticTurns?: number;
  /** Tokens each tool round adds to the conversation. Default 1500 (5 arXiv/web snippets of ~300 tokens). */
  toolResultTokens?: number;
  sizes: PromptSizes;
}

/**
 * The stages of the paper's LLM study for `queries` test queries: single-shot listwise rerank per reranker (one
 * window of 10 per query), agentic rerank (`agenticTurns` model turns, each resending the conversation with
 * `toolResultTokens` more per tool round: about 8x a single-shot call at the defaults, within the paper's 5-10x),
 * the judge over the top-`judgeDepth` of each query (the rerankers only permute the top 10, so every system's
 * top 20 is the same set: one judgement per (query, dataset)), and optionally the writer.
 */
export function paperPlanStages(o: PaperPlanOptions): PlanStage[] {
  const out: PlanStage[] = [];
  const turns = o.agenticTurns ?? 4;
  const tool = o.toolResultTokens ?? 1500;
  if ((o.writerCalls ?? 0) > 0)
    out.push({ stage: 'writer', configId: o.writer ?? 'gpt-5.4-writer', calls: o.writerCalls!, inputTokensPerCall: o.sizes.writerInputTokens, answerTokensPerCall: 60, note: 'writer: 2 samples per publication, abstract only, answer ≈ 60 tokens' });
  for (const id of o.rerankers ?? ['gpt-5.5', 'gpt-5.4', 'o4-mini', 'claude-opus-4-7', 'deepseek-v4-pro'])
    out.push({ stage: 'listwise', configId: id, calls: o.queries, inputTokensPerCall: o.sizes.listwiseInputTokens, answerTokensPerCall: 40, note: 'listwise: one window of 10 per query, answer {"ranked": [...]} ≈ 40 tokens + reasoning' });
  for (const id of o.agentic ?? ['claude-opus-4-7', 'deepseek-v4-pro']) {
    const input = turns * o.sizes.listwiseInputTokens + (tool * turns * (turns - 1)) / 2;
    out.push({ stage: 'agentic', configId: id, batchable: false, calls: o.queries * turns, inputTokensPerCall: Math.round(input / turns), answerTokensPerCall: 150, note: `agentic: ${turns} turns per query, +${tool} tool-result tokens per round, ≈150 answer/tool-call tokens per turn` });
  }
  if (o.judge !== null)
    out.push({ stage: 'judge', configId: o.judge ?? 'qwen3.6-35b-a3b-judge', calls: o.queries * (o.judgeDepth ?? 20), inputTokensPerCall: o.sizes.judgeInputTokens, answerTokensPerCall: 2, note: 'judge: top 20 per query, shared by every reranked system (they only permute the top 10)' });
  return out;
}
