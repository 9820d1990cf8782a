/**
 * Identifiers written in several forms meet in one token (issue 38 step 3). The word analyzers split "Sentinel-1A" into
 * `sentinel 1a` and a query's "Sentinel-1" into `sentinel 1`, so `1` never meets `1a`; "Level 2" never meets "L2";
 * "V006" never meets "version 6". `identifierFormTokens` reads a text's lower-case word tokens and returns the joined
 * forms to add beside them:
 *   - a name followed by a member number ("sentinel 1a", "landsat 8", "noaa 20", "goes 16"): the member `sentinel1a`,
 *     and for a member with a letter its series too (`sentinel1`), so that "Sentinel-1" meets 1A and 1B;
 *   - Landsat's short forms L5 … L9 (`l8` → `landsat8`; L0 … L4 are processing levels);
 *   - processing levels: "level 2", "level-2A" → `l2`, `l2a` (the form titles use: "L2A");
 *   - versions: "V006", "version 6", "v6" → `v6` ("V061" → `v61`: leading zeros dropped).
 * Only forms: the tokens themselves stay, so nothing that matched before stops matching.
 */
import { ENGLISH_STOP_WORDS } from '../util/english';

/** A member number after a name: 1–2 digits, then at most one letter ("1a", "8", "20"). */
const MEMBER = /^(\d{1,2})([a-z]?)$/;
/** Words that a number follows without naming a member ("band 7", "day 1", "of 2", "version 6"). */
const NOT_SERIES = new Set([
  'band', 'bands', 'channel', 'channels', 'day', 'days', 'hour', 'hours', 'minute', 'minutes', 'month', 'months', 'week', 'weeks', 'year', 'years',
  'km', 'degree', 'degrees', 'deg', 'arc', 'arcsec', 'level', 'version', 'collection', 'release', 'edition', 'set', 'phase', 'grid', 'tile', 'orbit',
  'layer', 'layers', 'part', 'section', 'table', 'figure', 'step', 'zone', 'zones', 'region', 'site', 'sites', 'case', 'cycle', 'number', 'top', 'than',
]);

/** The joined forms of a token list (`bm25Tokens`: lower-case letter/digit runs), without repeats, in text order. */
export function identifierFormTokens(tokens: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (t: string, original: string) => {
    if (t !== original && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    // a series name and its member number
    if (next !== undefined && /^[a-z]{3,}$/.test(t) && !NOT_SERIES.has(t) && !ENGLISH_STOP_WORDS.has(t)) {
      const m = MEMBER.exec(next);
      if (m) {
        add(`${t}${m[1]}${m[2]}`, t);
        if (m[2]) add(`${t}${m[1]}`, t);
      }
    }
    // Landsat's L5 … L9
    const l = /^l([5-9])$/.exec(t);
    if (l) add(`landsat${l[1]}`, t);
    // "level 2", "level-2a"
    if (t === 'level' && next !== undefined && /^[0-4][a-z]?$/.test(next)) add(`l${next}`, t);
    // "V006", "v6", "version 6"
    const v = /^v0*(\d+)$/.exec(t);
    if (v) add(`v${v[1]}`, t);
    if (t === 'version' && next !== undefined && /^\d+$/.test(next)) add(`v${Number(next)}`, t);
  }
  return out;
}
