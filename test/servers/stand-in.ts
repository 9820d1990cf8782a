/**
 * The local stand-in server for recordings without a key (scripts/record-standin.cjs): an OpenAI-compatible chat
 * server (startFakeOpenAI) that answers the project's own prompts deterministically by word overlap, reporting the
 * model name STAND_IN_MODEL so that every table built from its records can say it is plumbing, not a model's
 * judgement:
 *   - judge prompt (`<dataset>` block): YES when at least `judgeCover` of the query's content words occur in the
 *     dataset's short name, title and summary, else NO;
 *   - listwise prompt (`<query>` + `<candidate id="n">` items): `{"ranked": [...]}`, candidates by overlap with the
 *     query (title words count twice), ties by id;
 *   - agentic prompt (tools offered): on queries whose text hashes even, first one call of the first offered tool
 *     with the query text, then the listwise answer; on the others the listwise answer at once.
 */
import { createHash } from 'node:crypto';
import { STAND_IN_MODEL } from '../../lib/llm/standin';
import { hasToolResults, startFakeOpenAI, type FakeAnswer, type FakeServer } from './fake-llm';

const STOP = new Set(
  'a about above after also among an and any are as at be been between by can data dataset datasets do does for from has have how i in into is it its more of on or over such than that the their these this those to under use used using want was were what when where which while with within'.split(' '),
);

/** Content words of a text (lower case, ≥ 3 letters, no stop words). */
export function standInWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !STOP.has(w)));
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function between(text: string, open: string, close: string): string | null {
  const i = text.indexOf(open);
  if (i < 0) return null;
  const j = text.indexOf(close, i + open.length);
  return j < 0 ? null : text.slice(i + open.length, j);
}

/** The answer of the stand-in to a judge prompt (YES/NO), or null when the text is not one. */
export function standInJudge(user: string, judgeCover = 0.3): string | null {
  const dataset = between(user, '<dataset>', '</dataset>');
  const query = between(user, 'Research query:\n', '\n\nDataset:');
  if (dataset === null || query === null) return null;
  const q = standInWords(query);
  const d = standInWords(unescapeXml(dataset));
  let hit = 0;
  for (const w of q) if (d.has(w)) hit++;
  return q.size > 0 && hit / q.size >= judgeCover ? 'YES' : 'NO';
}

/** The stand-in's ranking of a listwise prompt's candidates (1-based ids), or null when the text holds none. */
export function standInRanking(user: string): number[] | null {
  const query = between(user, '<query>', '</query>');
  if (query === null) return null;
  const q = standInWords(unescapeXml(query));
  const scored: { id: number; score: number }[] = [];
  for (const m of user.matchAll(/<candidate id="(\d+)">([\s\S]*?)<\/candidate>/g)) {
    const title = standInWords(unescapeXml(between(m[2], '<title>', '</title>') ?? ''));
    const summary = standInWords(unescapeXml(between(m[2], '<summary>', '</summary>') ?? ''));
    let score = 0;
    for (const w of q) score += (title.has(w) ? 2 : 0) + (summary.has(w) ? 1 : 0);
    scored.push({ id: Number(m[1]), score });
  }
  if (scored.length === 0) return null;
  return scored.sort((a, b) => b.score - a.score || a.id - b.id).map((s) => s.id);
}

/** Whether the stand-in calls a tool first for this query (deterministic: the query text's hash is even). */
export function standInCallsTool(query: string): boolean {
  return createHash('sha256').update(query.trim()).digest()[0] % 2 === 0;
}

/** The stand-in's reply to one OpenAI chat request body. */
export function standInReply(body: any): FakeAnswer {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const user = msgs.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  const verdict = standInJudge(user);
  if (verdict !== null) return { text: verdict, model: STAND_IN_MODEL };
  const ranked = standInRanking(user);
  if (ranked === null) return { text: 'stand-in: no prompt it knows', model: STAND_IN_MODEL };
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const query = unescapeXml(between(user, '<query>', '</query>') ?? '');
  if (tools.length > 0 && !hasToolResults(body) && standInCallsTool(query)) {
    return { toolCalls: [{ name: tools[0].function?.name ?? tools[0].name, arguments: { query: query.trim(), max_results: 5 } }], model: STAND_IN_MODEL };
  }
  return { text: JSON.stringify({ ranked }), model: STAND_IN_MODEL };
}

/** Start the stand-in server on 127.0.0.1 (a free port); `url` ends with /v1. */
export function startStandInServer(): Promise<FakeServer> {
  return startFakeOpenAI((req) => standInReply(req.body));
}
