/**
 * The flags of every `eo` command as data: one table per command gives the parser its options (`parseArgsOptions`)
 * and `--help` its lines (`formatFlagHelp`: one line per flag with its default), so the two cannot drift apart
 * (test/cli-help.test.ts compares them). No module of the pipeline is imported: `eo --help` stays cheap.
 */
import { MAX_QUERY_CHARS } from '../serve/validate';

/** One flag of a command. */
export interface FlagSpec {
  /** Long name, without the dashes (`k`, `bounding-box`). */
  name: string;
  /** Placeholder of the value (`N`, `DIR`, `best|bm25`); absent: a switch that takes no value. */
  value?: string;
  /** May be given more than once (the values are read as a list). Default false. */
  multiple?: boolean;
  /**
   * Given at most once, and a repeat is refused by the command ("give it once", as the API refuses it) rather than
   * the last one kept silently: parsed as a list so the command sees the repeat. Default false.
   */
  once?: boolean;
  /** One-letter alias (`h`). */
  short?: string;
  /** The default as the user would read it; absent: none (unset). */
  default?: string;
  /** What it does, in one line. */
  help: string;
}

/** Options for `node:util`'s parseArgs from a flag table. */
export function parseArgsOptions(specs: readonly FlagSpec[]): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> {
  return Object.fromEntries(specs.map((s) => [s.name, { type: s.value === undefined ? 'boolean' : 'string', ...(s.multiple || s.once ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) }]));
}

/** The flag lines of a `--help`: `  --name VALUE   what it does (default …)`, aligned. */
export function formatFlagHelp(specs: readonly FlagSpec[]): string {
  const heads = specs.map((s) => `${s.short ? `-${s.short}, ` : ''}--${s.name}${s.value ? ` ${s.value}` : ''}${s.multiple ? ' …' : ''}`);
  const width = Math.min(34, Math.max(...heads.map((h) => h.length)) + 2);
  // a flag too long for the column gets its text on the next line, under the others'
  return specs.map((s, i) => `  ${heads[i].length + 2 > width ? `${heads[i]}\n  ${' '.repeat(width)}` : heads[i].padEnd(width)}${s.help}${s.default !== undefined ? ` (default ${s.default})` : ''}`).join('\n');
}

/** A command's `--help`: its synopsis lines, then one line per flag (COMMAND_FLAGS). */
export function commandHelp(name: CommandName): string {
  const { synopsis, flags } = COMMAND_FLAGS[name];
  return `${synopsis}\n\nflags:\n${formatFlagHelp(flags)}`;
}

const HELP: FlagSpec = { name: 'help', short: 'h', help: 'print this help and exit' };
const SAMPLE: FlagSpec = { name: 'sample', help: 'use the 200-dataset sample of the snapshot (fast; for trying things)' };
const DATA: FlagSpec = { name: 'data', value: 'DIR', default: '$EO_DATA_DIR, else shared/data/eo beside the checkout', help: 'the snapshot folder (datasets, publications, links, GCMD files)' };
const ENCODER: FlagSpec = { name: 'encoder', value: 'use-lite|onnx:<dir>', default: '$EO_ENCODER, else USE-lite', help: 'the sentence encoder of the cosine scorer (sets $EO_ENCODER)' };
const JSON_OUT: FlagSpec = { name: 'json', help: 'write the whole answer as JSON on stdout' };

/** How the default ranking is built (eo search, eo eval --system, eo serve). */
const RANKING: readonly FlagSpec[] = [
  { name: 'semantic', value: 'best|nnssc|use-lite|static', default: 'best: the corpus-trained static encoder', help: 'the semantic half fused with BM25' },
  { name: 'fusion', value: 'adaptive|analytic|grid|rrf', default: 'adaptive', help: 'adaptive: α set per query from its shape (a model fitted on training queries); analytic: one α (paper Eq. 7); grid: one α searched on training; rrf: reciprocal-rank fusion' },
  { name: 'alpha', value: 'A', help: 'a fixed weight of the semantic half in [0, 1] (convex fusion only)' },
  { name: 'nnssc-top-m', value: 'M|exact', default: 'the default ranking\'s two-stage M', help: 'NN-SSC scores only the union of BM25\'s and cosine\'s top M (exact: every dataset)' },
  { name: 'static-prf', value: '[lexical:]K:BETA|none', default: 'lexical:5:1 with BM25, else 3:1', help: 'the static encoder\'s query-time feedback: the query moved towards the first K datasets (weight BETA) of its own ranking, or with lexical: of BM25\'s, and scored again; none: one pass (the adaptive start α 0.7 was chosen with lexical:5:1; with its own seeds 0.3 ranked best)' },
];

/** `eo search "<query>"`. */
export const SEARCH_FLAGS: readonly FlagSpec[] = [
  { name: 'k', value: 'N', default: '10', help: 'results to show' },
  JSON_OUT,
  { name: 'retriever', value: 'best|bm25|bm25-stop|cosine|static|nnssc', default: 'best', help: 'best: BM25 fused with the semantic half; the others rank alone' },
  ...RANKING,
  { name: 'no-repair', help: 'search the query as typed (default: misspellings mended, said on stderr)' },
  { name: 'provider', value: 'DAAC', multiple: true, help: 'keep datasets of these providers (repeatable or comma-separated: values OR, filters AND)' },
  { name: 'platform', value: 'NAME', multiple: true, help: 'keep datasets of these platforms (CMR\'s or inferred from GCMD)' },
  { name: 'instrument', value: 'NAME', multiple: true, help: 'keep datasets of these instruments (CMR\'s or inferred from GCMD)' },
  { name: 'processing-level-id', value: 'L', multiple: true, help: 'keep datasets of these processing levels (2, L3, Level 1B)' },
  { name: 'temporal', value: 'START,END', once: true, help: 'keep datasets whose period meets this one (CMR syntax; a side empty = open; give it once)' },
  { name: 'bounding-box', value: 'W,S,E,N', once: true, help: 'keep datasets whose box meets this one (west > east crosses 180°; write --bounding-box=-10,… before a leading -)' },
  { name: 'ignore', value: 'period|place:NAME|identifier:TEXT', multiple: true, help: 'leave a constraint parsed from the question out' },
  { name: 'facets', help: 'print facet counts of the top 100 (providers, platforms, instruments, levels, decades)' },
  SAMPLE, DATA, ENCODER, HELP,
];
export const SEARCH_SYNOPSIS = `usage: eo search "<query>" [flags]   (at most ${MAX_QUERY_CHARS} characters)`;

/** `eo eval`. */
export const EVAL_FLAGS: readonly FlagSpec[] = [
  { name: 'run', value: 'FILE', help: 'a TREC run file to score against --qrels' },
  { name: 'qrels', value: 'FILE', help: 'the TREC qrels of --run' },
  { name: 'depth', value: 'N', default: '100', help: 'ranks of --run scored' },
  { name: 'system', value: 'best|bm25|bm25-stop|cosine|static|nnssc', help: 'rank a benchmark\'s queries with this system and score it' },
  { name: 'bench', value: 'FILE|styles', default: 'the title benchmark of the snapshot', help: 'the benchmark (styles: the benchmark of real query styles)' },
  { name: 'split', value: 'test|train|test-subset|dev', default: 'test; dev with --bench styles', help: 'the split scored (the styles test half only to report)' },
  { name: 'no-rules', help: 'rank the queries as the paper does: no query rules, no repair' },
  ...RANKING,
  { name: 'out', value: 'DIR', default: 'reports/cli', help: 'where the run and qrels files are written' },
  JSON_OUT,
  { name: 'format', value: 'tsv|latex', default: 'tsv', help: 'the table\'s format' },
  SAMPLE, DATA, ENCODER, HELP,
];
export const EVAL_SYNOPSIS = `usage: eo eval --run FILE --qrels FILE [flags]
       eo eval --system best|bm25|bm25-stop|cosine|static|nnssc [--bench FILE|styles] [--split …] [flags]`;

/** `eo bench build` from the snapshot (the KG export and NASA-EO-Bench imports: lib/cli/bench.ts). */
export const BENCH_BUILD_FLAGS: readonly FlagSpec[] = [
  { name: 'seed', value: 'N', default: '42', help: 'seed of the split and the test subset' },
  { name: 'test-fraction', value: 'F', default: '0.2', help: 'share of the publications in the test split, in (0, 1)' },
  { name: 'subset', value: 'N', default: '200', help: 'queries in the test subset' },
  { name: 'relations', value: 'R1,R2', default: 'every relation', help: 'the publication–dataset relations kept as labels' },
  { name: 'out', value: 'DIR', default: 'data/bench/eo-title', help: 'where the benchmark is written' },
  SAMPLE, DATA, HELP,
];
export const BENCH_BUILD_SYNOPSIS = 'usage: eo bench build [flags]   (--kg FILE: from the EO Knowledge Graph export, see eo bench --help)';

/** `eo serve`. */
export const SERVE_FLAGS: readonly FlagSpec[] = [
  { name: 'port', value: 'N', default: '8765', help: 'the port (0: any free one, printed)' },
  { name: 'host', value: 'ADDRESS', default: '127.0.0.1', help: 'the address to listen on (0.0.0.0: every interface)' },
  { name: 'semantic', value: 'best|nnssc|use-lite|static|none', default: 'best: the corpus-trained static encoder', help: 'the semantic half fused with BM25 (none: BM25 alone)' },
  ...RANKING.filter((f) => f.name !== 'semantic'),
  { name: 'rate-limit', value: 'N', default: '300', help: 'requests per client per minute' },
  { name: 'max-query', value: 'N', default: String(MAX_QUERY_CHARS), help: 'longest query, in characters' },
  { name: 'llm-router', value: 'MODEL_ID', help: 'let an LLM choose the NASA tools (a model of lib/llm/models.json; recorded); default the rule router' },
  { name: 'no-batch', help: 'embed each query alone and keep no answer cache (to compare)' },
  { name: 'log', help: 'log every request (Fastify\'s logger)' },
  SAMPLE, DATA, ENCODER, HELP,
];
export const SERVE_SYNOPSIS = 'usage: eo serve [flags]   (the page at /, the JSON API at /api/search: lib/serve/README.md)';

/** `eo cache verify|rebuild`. */
export const CACHE_FLAGS: readonly FlagSpec[] = [SAMPLE, DATA, HELP];
export const CACHE_SYNOPSIS = `usage:
  eo cache verify                                 check every cache's content hash: one line per file (exit 3 when one is damaged or stale)
  eo cache rebuild bm25|embeddings|all [flags]    rebuild the snapshot's caches in place (the old ones stay until the new ones are whole)`;

/** `eo gpu check` (lib/cli/gpu.ts). */
export const GPU_FLAGS: readonly FlagSpec[] = [
  { name: 'parity', help: "then train the static encoder and NN-SSC briefly on the adapter and compare loss and gradients with the CPU path's (exit 4, GPU_PARITY, beyond the tolerance)" },
  JSON_OUT, HELP,
];
export const GPU_SYNOPSIS = `usage:
  eo gpu check [--parity] [--json]                name the WebGPU adapter TensorFlow.js would train on, or the missing link
                                                  (the opt-in packages, the Vulkan loader, an adapter): exit 4 when there is none`;

/** `eo export latex FILE`. */
export const EXPORT_FLAGS: readonly FlagSpec[] = [
  { name: 'key', value: 'PATH', help: 'the array of rows inside FILE (a.b for nested fields); default FILE itself' },
  { name: 'columns', value: 'C1,C2', default: 'system, R@10, MAP, MRR when the rows have them, else every column', help: 'the columns, in order (the system column always first)' },
  { name: 'best', value: 'C1,C2', help: 'columns whose largest value is set in bold' },
  { name: 'ci', value: 'COL:LOW:HIGH', multiple: true, help: 'print COL with its CI from the columns LOW and HIGH' },
  { name: 'ci-column', help: 'print each CI in a column of its own (default: beside its value)' },
  { name: 'digits', value: 'N', default: '3', help: 'fraction digits of numbers' },
  { name: 'caption', value: 'TEXT', help: 'the table\'s caption' },
  { name: 'label', value: 'KEY', help: 'the table\'s \\label' },
  HELP,
];
export const EXPORT_SYNOPSIS = `usage: eo export latex FILE [flags]
      (FILE: a JSON array of rows or a results.json; a value whose row has a 'p Holm (<column>)' below .05 gets a † and the table a note)`;

/** Synopsis of `eo llm` (also in `eo --help`). */
export const LLM_SYNOPSIS = `  eo llm plan [--queries 200] [--writer] [--exact] [--models ID,ID] [--agentic ID,ID] [--json] [--sample] [--data DIR]
  eo llm batch --stage listwise|judge|writer --model ID [--no-wait] [--poll-seconds 30] [--max-attempts 2] [--sample] [--data DIR]
  eo llm import FILE [--field ours=theirs ...] [--store PATH] [--dry-run] [--sample] [--data DIR]
  eo llm status`;

/** Synopsis of `eo bench build --kg` and `eo bench import` (also in `eo --help`). */
export const BENCH_SYNOPSIS = `usage:
  eo bench build --kg FILE [--writer title|llm:<model>] [--seed 42] [--test-fraction 0.2] [--subset 200] [--out DIR]
  eo bench import FILE [--field query=NAME] [--field positives=NAME] [--field split=NAME] [--field id=NAME]
                       [--split test] [--resolve] [--kg FILE | --data DIR | --sample] [--seed 42] [--subset 200] [--out DIR]`;

/** `eo llm plan|batch|import|status` (one parser for the four; each line says which reads it). */
export const LLM_FLAGS: readonly FlagSpec[] = [
  { name: 'queries', value: 'N', default: '200', help: 'plan: queries of the reranking stages' },
  { name: 'writer', help: 'plan: include the LLM query writer of the benchmark' },
  { name: 'exact', help: 'plan: count prompt tokens exactly (slower) instead of estimating them' },
  { name: 'models', value: 'ID,ID', default: 'every model of lib/llm/models.json', help: 'plan: the listwise reranker models' },
  { name: 'agentic', value: 'ID,ID', help: 'plan: the agentic reranker models' },
  JSON_OUT,
  { name: 'stage', value: 'listwise|judge|writer', help: 'batch: the stage whose requests are submitted' },
  { name: 'model', value: 'ID', help: 'batch: the model (an id of lib/llm/models.json)' },
  { name: 'no-wait', help: 'batch: submit and return; a later run collects the answers' },
  { name: 'poll-seconds', value: 'N', default: '30', help: 'batch: seconds between status polls' },
  { name: 'max-attempts', value: 'N', default: '2', help: 'batch: submissions of a failed request before it is left out' },
  { name: 'field', value: 'ours=theirs', multiple: true, help: 'import: a payload field name for one of ours' },
  { name: 'store', value: 'PATH', default: '$EO_LLM_STORE, else recordings/llm/records.jsonl', help: 'the record store read and written' },
  { name: 'dry-run', help: 'import: say what would be imported, write nothing' },
  SAMPLE, DATA, HELP,
];

/** `eo bench build --kg` and `eo bench import` (lib/cli/bench.ts). */
export const BENCH_FLAGS: readonly FlagSpec[] = [
  { name: 'kg', value: 'FILE', help: 'build: the EO Knowledge Graph export (Cypher JSON lines); import: resolve datasets against it' },
  { name: 'writer', value: 'title|llm:<model>', default: 'title', help: 'build: who writes the queries (the publication title, or an LLM, recorded)' },
  { name: 'seed', value: 'N', default: '42', help: 'seed of the split and the test subset' },
  { name: 'test-fraction', value: 'F', default: '0.2', help: 'build: share of the publications in the test split, in (0, 1)' },
  { name: 'subset', value: 'N', default: '200', help: 'queries in the test subset' },
  { name: 'out', value: 'DIR', help: 'where the benchmark is written (default: data/bench/<its name>)' },
  { name: 'field', value: 'ROLE=NAME', multiple: true, help: 'import: the file\'s field of a role (query, positives, split, id)' },
  { name: 'split', value: 'NAME', default: 'test', help: 'import: the split of rows that name none' },
  { name: 'resolve', help: 'import: map positives by DOI or short name onto the corpus' },
  SAMPLE, DATA, HELP,
];

/** The commands with a flag table. */
export type CommandName = 'search' | 'eval' | 'bench build' | 'serve' | 'cache' | 'export' | 'llm' | 'bench' | 'gpu';

/** Every command with a flag table, for `--help`, docs/cli.md and the test that holds help and parser together. */
export const COMMAND_FLAGS: Readonly<Record<CommandName, { synopsis: string; flags: readonly FlagSpec[] }>> = {
  search: { synopsis: SEARCH_SYNOPSIS, flags: SEARCH_FLAGS },
  eval: { synopsis: EVAL_SYNOPSIS, flags: EVAL_FLAGS },
  'bench build': { synopsis: BENCH_BUILD_SYNOPSIS, flags: BENCH_BUILD_FLAGS },
  serve: { synopsis: SERVE_SYNOPSIS, flags: SERVE_FLAGS },
  cache: { synopsis: CACHE_SYNOPSIS, flags: CACHE_FLAGS },
  gpu: { synopsis: GPU_SYNOPSIS, flags: GPU_FLAGS },
  export: { synopsis: EXPORT_SYNOPSIS, flags: EXPORT_FLAGS },
  llm: { synopsis: `usage:\n${LLM_SYNOPSIS}`, flags: LLM_FLAGS },
  bench: { synopsis: BENCH_SYNOPSIS, flags: BENCH_FLAGS },
};

/** Markers of the generated flag section of docs/cli.md (`node scripts/docs-cli.cjs` writes what lies between). */
export const CLI_DOC_MARKERS = ['<!-- flags: generated by scripts/docs-cli.cjs from lib/cli/flags.ts; do not edit -->', '<!-- flags: end -->'] as const;

/** The flag section of docs/cli.md: each command's `--help`, as the command prints it. */
export function cliFlagsMarkdown(): string {
  const blocks = (Object.keys(COMMAND_FLAGS) as CommandName[]).map((name) => `### eo ${name}\n\n\`\`\`text\n${commandHelp(name)}\n\`\`\``);
  return `${CLI_DOC_MARKERS[0]}\n\n${blocks.join('\n\n')}\n\n${CLI_DOC_MARKERS[1]}`;
}
