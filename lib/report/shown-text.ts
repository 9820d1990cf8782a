/**
 * The generated Markdown a notebook has shown, in order, so that `writeResults` can keep it beside the tables it
 * describes: the claim check (lib/lessons/claims.ts) reads both from results.json and tests that they agree.
 */
const shown: string[] = [];

/** Called by `showMarkdown`: remember one shown Markdown text (empty texts are skipped). */
export function recordShownText(md: string): void {
  if (md.trim() !== '') shown.push(md);
}

/** Every Markdown text shown in this process so far, oldest first. */
export function shownText(): string[] {
  return [...shown];
}
