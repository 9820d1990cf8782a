import type { ToolSpec } from '../llm/types';

/** One result item of a search tool (publication, web page, dataset documentation). */
export interface ToolItem {
  title: string;
  /** Abstract / snippet / description (cut for the model). */
  snippet: string;
  url?: string;
  /** Bare DOI (lower-case) when known. */
  doi?: string;
  /** Source id (arXiv id, publication id, dataset id…). */
  id?: string;
  year?: number;
  /** Datasets the item is linked to (local publication index: training-split links only). */
  datasetIds?: string[];
}

/** What a tool returns: items (the leakage guard filters them) and where they came from. */
export interface ToolResult {
  items: ToolItem[];
  /** e.g. `arxiv (export.arxiv.org)`, `local publications (snapshot)`, `web (tavily)`. */
  source: string;
}

/** Who the tool is running for: lets guards and caches know the query. */
export interface ToolContext {
  queryId: string;
  /** Aborts long requests when the agent's wall-time budget runs out. */
  signal?: AbortSignal;
}

/**
 * A tool: a plain async function with a JSON schema. The agent harness knows nothing about its insides; the same
 * spec is offered to every provider through native tool calling.
 */
export interface AgentTool {
  spec: ToolSpec;
  /** `live` tools call a remote API; `offline` ones search local indexes. */
  mode: 'live' | 'offline';
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** The query's source publication, as the leakage guard needs it. */
export interface SourcePublication {
  doi: string | null;
  title: string;
}
