import type { Publication } from '../data/types';
import { EoError } from '../errors';
import { packageFile } from '../util/paths';
import { loadPromptTemplate } from '../util/prompt';
import type { PromptTemplate } from '../util/types';
import type { LlmComplete } from '../llm/types';
import type { QueryWriter } from './types';

/**
 * Offline writer: the publication title is the query. Needs no LLM; every output built with it says so
 * (its label travels with the benchmark).
 */
export function titleQueryWriter(): QueryWriter {
  return {
    id: 'title',
    label: 'publication title as query (offline writer; not the paper\'s LLM-written queries)',
    async write(pub) {
      return [pub.title.trim()];
    },
  };
}

/** The query-writer prompt template (a data file beside this module; see its header for status). */
export function loadQueryWriterPrompt(file = packageFile('bench', 'prompts', 'query-writer.md')): PromptTemplate {
  return loadPromptTemplate(file);
}

export function queryWriterMessages(pub: Publication, tpl: PromptTemplate): { role: 'system' | 'user'; content: string }[] {
  const useAbstract = pub.abstract !== null && pub.abstract.trim() !== '';
  const user = tpl.user
    .replace(/\{\{TEXT_KIND\}\}/g, useAbstract ? 'abstract' : 'title')
    .replace(/\{\{TEXT\}\}/g, useAbstract ? pub.abstract!.trim() : pub.title.trim());
  return [
    { role: 'system', content: tpl.system },
    { role: 'user', content: user },
  ];
}

/** Clean one LLM answer into a one-line query: first non-empty line, quotes and "Query:" prefixes removed. */
export function cleanWrittenQuery(text: string): string {
  const line = text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '') ?? '';
  return line.replace(/^(query|research query)\s*:\s*/i, '').replace(/^["'“”]+|["'“”]+$/g, '').trim();
}

export interface LlmQueryWriterOptions {
  complete: LlmComplete;
  /** Model snapshot id, stored on every query as `llm:<model>`. */
  model: string;
  /** Sampling temperature. Default 0.2 (the paper's). */
  temperature?: number;
  /** Independent queries per publication. Default 2 (the paper's). */
  variants?: number;
  /** Prompt template. Default loadQueryWriterPrompt(). */
  prompt?: PromptTemplate;
}

/** The paper's LLM writer: `variants` independent calls per publication, "I want to …" task queries. */
export function llmQueryWriter(opts: LlmQueryWriterOptions): QueryWriter {
  const tpl = opts.prompt ?? loadQueryWriterPrompt();
  const variants = opts.variants ?? 2;
  return {
    id: `llm:${opts.model}`,
    label: `LLM-written task queries (${opts.model}, temperature ${opts.temperature ?? 0.2})`,
    async write(pub) {
      const messages = queryWriterMessages(pub, tpl);
      const out: string[] = [];
      for (let v = 1; v <= variants; v++) {
        const r = await opts.complete({ messages, temperature: opts.temperature ?? 0.2, sample: v });
        const q = cleanWrittenQuery(r.text);
        if (q === '') throw new EoError('BENCH', `query writer returned no text for publication ${pub.id} (sample ${v})`);
        out.push(q);
      }
      return out;
    },
  };
}
