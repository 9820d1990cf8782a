/**
 * The generated Markdown a notebook has shown, so that `writeResults` can keep it beside the tables it describes: the
 * claim check (lib/lessons/claims.ts) reads both from results.json and tests that they agree.
 *
 * A text shown under a key (`showMarkdown(md, { key })`, one key per generated sentence of a notebook step) replaces
 * what that key showed before: in a live kernel a re-run cell replaces its sentence instead of adding a second one,
 * and the keyed texts are listed by key, so the order the cells ran in does not change results.json. Texts shown
 * without a key are kept as shown, oldest first, before the keyed ones.
 */
const shown: string[] = [];
const keyed = new Map<string, string>();

/** Called by `showMarkdown`: remember one shown Markdown text (an empty text is skipped; under a key it removes the key's). */
export function recordShownText(md: string, key?: string): void {
  if (key !== undefined) {
    if (md.trim() === '') keyed.delete(key);
    else keyed.set(key, md);
    return;
  }
  if (md.trim() !== '') shown.push(md);
}

/** Every Markdown text shown in this process so far: the unkeyed ones oldest first, then the keyed ones by key. */
export function shownText(): string[] {
  return [...shown, ...[...keyed.keys()].sort().map((k) => keyed.get(k)!)];
}
