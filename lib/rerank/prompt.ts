import { loadPromptTemplate } from '../util/prompt';
import type { PromptTemplate } from '../util/types';
import { packageFile } from '../util/paths';
import type { RerankCandidate } from './types';

/** Where the listwise prompt lives (a data file beside the source; see its header for its status). */
export function listwisePromptFile(): string {
  return packageFile('rerank', 'prompts', 'listwise.md');
}

/**
 * Load a `===SYSTEM=== / ===USER===` prompt file (HTML comments stripped). The listwise prompt
 * (`prompts/listwise.md`) is the default; the format and loader (lib/util/prompt.ts) are shared by every prompt.
 */
export function loadListwisePrompt(file = listwisePromptFile()): PromptTemplate {
  return loadPromptTemplate(file);
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface CandidateXmlOptions {
  /** Summary = abstract cut at this many characters (on a word boundary, "…" appended). Default 600. */
  summaryChars?: number;
}

/** Title shown for a dataset: "shortName: longName" (or the longName alone). */
export function candidateTitle(c: RerankCandidate): string {
  return c.record.shortName ? `${c.record.shortName}: ${c.record.longName}` : c.record.longName;
}

function cut(text: string, n: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  const s = t.slice(0, n);
  const sp = s.lastIndexOf(' ');
  return `${sp > n * 0.6 ? s.slice(0, sp) : s}…`;
}

/** The window as numbered XML: `<candidate id="1"><title>…</title><summary>…</summary></candidate>`. */
export function candidatesXml(window: readonly RerankCandidate[], opts: CandidateXmlOptions = {}): string {
  const n = opts.summaryChars ?? 600;
  const items = window.map(
    (c, i) => `<candidate id="${i + 1}">\n<title>${xmlEscape(candidateTitle(c))}</title>\n<summary>${xmlEscape(cut(c.record.abstract, n))}</summary>\n</candidate>`,
  );
  return `<candidates>\n${items.join('\n')}\n</candidates>`;
}

/** Fill a template's placeholders: {{QUERY}}, {{K}}, {{CANDIDATES}}. */
export function fillRerankTemplate(tpl: PromptTemplate, query: string, window: readonly RerankCandidate[], opts: CandidateXmlOptions = {}): { system: string; user: string } {
  const fill = (s: string) =>
    s
      .replace(/\{\{QUERY\}\}/g, () => query.trim())
      .replace(/\{\{K\}\}/g, String(window.length))
      .replace(/\{\{CANDIDATES\}\}/g, () => candidatesXml(window, opts));
  return { system: fill(tpl.system), user: fill(tpl.user) };
}
