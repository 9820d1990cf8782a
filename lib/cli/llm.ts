/**
 * `eo llm …`: the LLM stages' cost plan, batch submission and the import of released payloads.
 *   eo llm plan [--queries 200] [--writer] [--exact] [--models a,b] [--agentic a,b] [--json] [--sample] [--data DIR]
 *     --exact: build the rerank experiment's listwise and judge requests, so that `recorded` counts their keys
 *   eo llm batch --stage listwise|judge|writer --model ID [--no-wait] [--poll-seconds 30] [--max-attempts 2] [--sample] [--data DIR]
 *   eo llm import FILE [--field ours=theirs ...] [--store PATH] [--dry-run] [--sample] [--data DIR]
 *   eo llm status            (batch log summary of the record store)
 * Budget: EO_LLM_BUDGET_USD; store: EO_LLM_STORE; models: LLM_MODELS_FILE (see lib/llm/README.md).
 */
import { parseArgs } from 'node:util';
import { EoError } from '../errors';
import { LLM_USAGE, numberFlag } from './usage';
import { commandHelp, LLM_FLAGS, parseArgsOptions } from './flags';
import { loadSnapshot } from '../data/snapshot';
import { loadQueryWriterPrompt, queryWriterRequests } from '../bench/writers';
import { defaultLlmStorePath } from '../llm/client';
import { runBatch } from '../llm/batch';
import { defaultBatchLogPath, readBatchLog } from '../llm/batch-log';
import { getModelConfig, loadModelsFile } from '../llm/models';
import { llmRecordKey, normalizeChatRequest } from '../llm/key';
import type { Corpus } from '../data/types';
import { estimateCallTokens, formatCostPlan, llmCostPlan, paperPlanStages } from '../llm/plan';
import { paperPromptSizes } from '../report/llm-cost';
import { openRecordStore } from '../llm/store';
import type { ChatRequest, ModelConfig } from '../llm/types';
import { judgeBatchRequests } from '../judge/judge';
import { listwiseBatchRequests } from '../rerank/listwise';
import { describePayloadFields, importRerankPayloads, payloadFieldMap } from '../rerank/payloads';
import { prepareRerankExperiment } from '../study/experiment';



/** A usage error: exit status 2 (lib/cli/exit.ts). */
function fail(msg: string): never {
  throw new EoError('INVALID_ARGUMENT', `llm: ${msg}`);
}

function progressLine(p: { configId: string; done: number; total: number; inFlight: number; failed: number; inputTokens: number; outputTokens: number; costUsd: number; event: string }): string {
  return `[${p.configId}] ${p.done}/${p.total} done, ${p.inFlight} in flight, ${p.failed} failed; tokens in ${p.inputTokens} out ${p.outputTokens}; cost so far $${p.costUsd.toFixed(4)} — ${p.event}\n`;
}

/** Record keys of a run's requests for one model (what `recorded` counts in the store). */
function requestKeys(config: ModelConfig, requests: readonly ChatRequest[]): string[] {
  return requests.map((r) => llmRecordKey(config, normalizeChatRequest(config, r)));
}

/** The writer's requests: two samples per linked publication. */
function writerRequests(corpus: Corpus): ChatRequest[] {
  const linked = new Set(corpus.links.map((l) => l.publicationId));
  const tpl = loadQueryWriterPrompt();
  return corpus.publications.filter((p) => linked.has(p.id)).flatMap((p) => queryWriterRequests(p, tpl).map((r) => ({ ...r, stage: 'writer' })));
}

/** The listwise and judge requests of the rerank experiment (its strong backbone's lists), as `eo llm batch` submits them. */
async function experimentRequests(sample: boolean | undefined, dataDir: string | undefined): Promise<{ listwise: ChatRequest[]; judge: ChatRequest[] }> {
  const exp = await prepareRerankExperiment({ sample, dataDir, log: (l) => process.stderr.write(l + '\n') });
  const run = new Map(exp.strong.lists.map((l) => [l.query.id, l.candidates.map((c) => ({ docId: c.id, score: c.retrievalScore }))]));
  return {
    listwise: listwiseBatchRequests(exp.strong.lists),
    judge: judgeBatchRequests(run, exp.strong.lists.map((l) => l.query), (id) => exp.corpus.datasets[exp.corpus.indexById.get(id) ?? -1]),
  };
}

function parseLlmArgs(argv: string[]) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: parseArgsOptions(LLM_FLAGS) });
  return { values: values as LlmFlags, positionals };
}

/** The flags of `eo llm`, as parsed (LLM_FLAGS). */
interface LlmFlags {
  queries?: string; writer?: boolean; exact?: boolean; models?: string; agentic?: string; json?: boolean; stage?: string; model?: string;
  'no-wait'?: boolean; 'poll-seconds'?: string; 'max-attempts'?: string; field?: string[]; store?: string; 'dry-run'?: boolean;
  sample?: boolean; data?: string; help?: boolean;
}

export async function runLlmCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseLlmArgs(argv);
  if (values.help) return void process.stdout.write(commandHelp('llm') + '\n');
  // numeric flags checked before anything loads
  const queries = numberFlag(values.queries, 'queries', 200, { integer: true, min: 1 });
  const pollSeconds = numberFlag(values['poll-seconds'], 'poll-seconds', undefined, { min: 0 });
  const maxAttempts = numberFlag(values['max-attempts'], 'max-attempts', undefined, { integer: true, min: 1 });
  const [sub, ...rest] = positionals;
  const models = loadModelsFile().models;
  const storePath = values.store ?? defaultLlmStorePath();
  if (sub === 'plan') return llmPlan(values, queries, models, storePath);
  if (sub === 'status') return llmStatus(storePath);
  if (sub === 'batch') return llmBatch(values, models, storePath, pollSeconds, maxAttempts);
  if (sub === 'import') return llmImport(values, rest[0], models, storePath);
  fail(`unknown subcommand "${sub ?? ''}"\n${LLM_USAGE}`);
}

/** `eo llm plan`: the cost plan of the paper's LLM stages, with what the record store already holds. */
async function llmPlan(values: LlmFlags, queries: number, models: ModelConfig[], storePath: string): Promise<void> {
  const corpus = loadSnapshot({ dir: values.data, sample: values.sample });
  const sizes = paperPromptSizes(corpus);
  const linked = new Set(corpus.links.map((l) => l.publicationId));
  const writerCalls = values.writer ? 2 * corpus.publications.filter((p) => linked.has(p.id)).length : 0;
  const stages = paperPlanStages({
    queries, sizes, writerCalls,
    rerankers: values.models?.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    agentic: values.agentic?.split(',').map((s) => s.trim()).filter((s) => s !== ''),
  });
  // recorded counts the run's own request keys: the writer's are cheap to build; listwise and judge ones need the
  // experiment's lists (--exact); agentic loops are multi-turn (their later turns depend on the answers)
  const byModel = (id: string) => getModelConfig(id, models);
  const exact = values.exact ? await experimentRequests(values.sample, values.data) : null;
  const writer = values.writer ? writerRequests(corpus) : [];
  for (const st of stages) {
    if (st.stage === 'writer') st.keys = requestKeys(byModel(st.configId), writer);
    else if (exact && (st.stage === 'listwise' || st.stage === 'judge')) {
      st.keys = requestKeys(byModel(st.configId), exact[st.stage]);
      st.calls = st.keys.length;
      st.note = `${st.note ? `${st.note}; ` : ''}--exact: the experiment's ${st.stage} requests (${st.keys.length})`;
    }
  }
  const store = openRecordStore(storePath);
  const rows = llmCostPlan(stages, { models, store });
  if (values.json) process.stdout.write(JSON.stringify({ queries, sizes, rows }, null, 2) + '\n');
  else {
    process.stdout.write(formatCostPlan(rows, `LLM cost plan: ${queries} queries${writerCalls ? `, writer ${writerCalls} calls` : ''} (record store ${storePath})`));
    process.stdout.write(`- prompt sizes measured on ${corpus.origin}: listwise ${sizes.listwiseInputTokens}, writer ${sizes.writerInputTokens}, judge ${sizes.judgeInputTokens} input tokens per call (4 characters per token)\n`);
  }
}

/** `eo llm status`: the batches of the record store's batch log. */
function llmStatus(storePath: string): void {
  const subs = readBatchLog(defaultBatchLogPath(storePath));
  if (subs.length === 0) process.stdout.write(`no batches in ${defaultBatchLogPath(storePath)}\n`);
  for (const s of subs)
    process.stdout.write(`${s.sid}  ${s.configId}  ${s.api}  ${s.keys.length} requests  attempt ${s.attempt}  batch ${s.batchId ?? '(not submitted)'}  ${s.abandoned ? `abandoned: ${s.abandoned}` : s.collected ? `collected: ${s.collected.succeeded} ok, ${s.collected.failed.length} failed` : s.status ?? 'in flight'}\n`);
}

/** `eo llm batch`: one stage's requests through the provider's batch API, after printing their cost plan. */
async function llmBatch(values: LlmFlags, models: ModelConfig[], storePath: string, pollSeconds: number | undefined, maxAttempts: number | undefined): Promise<void> {
  const stage = values.stage ?? fail('batch needs --stage listwise|judge|writer');
  const config: ModelConfig = getModelConfig(values.model ?? fail('batch needs --model ID (see lib/llm/models.json)'), models);
  let requests: ChatRequest[];
  if (stage === 'writer') requests = writerRequests(loadSnapshot({ dir: values.data, sample: values.sample }));
  else if (stage === 'listwise' || stage === 'judge') requests = (await experimentRequests(values.sample, values.data))[stage];
  else fail(`--stage must be listwise, judge or writer (got "${stage}")`);
  const plan = llmCostPlan(
    [{ stage, configId: config.id, calls: requests.length, keys: requestKeys(config, requests), inputTokensPerCall: Math.round(requests.reduce((a, r) => a + estimateCallTokens(normalizeChatRequest(config, r), 0).inputTokens, 0) / Math.max(1, requests.length)), answerTokensPerCall: stage === 'judge' ? 2 : stage === 'writer' ? 60 : 40 }],
    { models, store: openRecordStore(storePath) },
  );
  process.stderr.write(formatCostPlan(plan, `before submitting (${stage}, ${config.id})`));
  const r = await runBatch({
    config, requests, store: storePath, wait: !values['no-wait'],
    pollIntervalMs: pollSeconds === undefined ? undefined : pollSeconds * 1000,
    maxAttempts,
    onProgress: (p) => process.stderr.write(progressLine(p)),
  });
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}

/** `eo llm import FILE`: released rerank payloads into the record store, renumbered onto our windows. */
async function llmImport(values: LlmFlags, fileArg: string | undefined, models: ModelConfig[], storePath: string): Promise<void> {
  const file = fileArg ?? fail('import needs a payload FILE (JSONL or a JSON array, one row per query and model)');
  const fields = payloadFieldMap(values.field ?? []);
  process.stdout.write(`field mapping (override with --field ours=theirs):\n${describePayloadFields(fields).map((l) => `  ${l}`).join('\n')}\n`);
  const exp = await prepareRerankExperiment({ sample: values.sample, dataDir: values.data, log: (l) => process.stderr.write(l + '\n') });
  const r = importRerankPayloads({ file, lists: exp.strong.lists, models, store: storePath, fields, dryRun: values['dry-run'] });
  process.stdout.write(`${r.rows} rows: ${r.imported} imported (${r.remapped} renumbered onto our window), ${r.alreadyRecorded} already recorded; not used: ${Object.entries(r.skipped).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
  for (const e of r.examples) process.stdout.write(`  line ${e.line}: ${e.reason}: ${e.detail}\n`);
  process.stdout.write(`${values['dry-run'] ? '(dry run: nothing written) ' : ''}store: ${storePath}; replay: EO_LLM_MODE=replay EO_LLM_STORE=${storePath} npm start -- --only 06-llm-rerank\n`);
}
