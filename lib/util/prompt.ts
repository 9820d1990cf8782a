import * as fs from 'node:fs';
import { EoError } from '../errors';
import type { PromptTemplate } from './types';

/**
 * Parse a prompt file: optional HTML comments (a header saying where the prompt comes from, its status), then
 * `===SYSTEM===` and `===USER===` sections. `source` names the file in errors.
 */
export function parsePromptTemplate(text: string, source: string): PromptTemplate {
  const body = text.replace(/<!--[\s\S]*?-->/g, '');
  const m = /===SYSTEM===\s*([\s\S]*?)===USER===\s*([\s\S]*)$/.exec(body);
  if (!m) throw new EoError('CONFIG', `${source}: expected ===SYSTEM=== and ===USER=== sections`);
  return { system: m[1].trim(), user: m[2].trim() };
}

/**
 * The one prompt-template loader: every prompt of the workbench (query writer, router, listwise rerank,
 * agentic routine, judge) is a file in this format, found with `packageFile(...)` by default.
 */
export function loadPromptTemplate(file: string): PromptTemplate {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EoError('DATA_NOT_FOUND', `prompt file not found: ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  return parsePromptTemplate(text, file);
}
