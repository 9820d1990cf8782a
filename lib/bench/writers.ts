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

/**
 * The writer's requests for one publication, exactly as `llmQueryWriter` sends them (samples 1..variants,
 * temperature 0.2 by default), e.g. for batch submission; the writer then finds every answer in a replay store.
 */
export function queryWriterRequests(pub: Publication, tpl: PromptTemplate = loadQueryWriterPrompt(), opts: { temperature?: number; variants?: number } = {}): { messages: { role: 'system' | 'user'; content: string }[]; temperature: number; sample: number }[] {
  const messages = queryWriterMessages(pub, tpl);
  return Array.from({ length: opts.variants ?? 2 }, (_, i) => ({ messages, temperature: opts.temperature ?? 0.2, sample: i + 1 }));
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
      const out: string[] = [];
      for (const req of queryWriterRequests(pub, tpl, { temperature: opts.temperature, variants })) {
        const v = req.sample;
        const r = await opts.complete(req);
        const q = cleanWrittenQuery(r.text);
        if (q === '') throw new EoError('BENCH', `query writer returned no text for publication ${pub.id} (sample ${v})`);
        out.push(q);
      }
      return out;
    },
  };
}
