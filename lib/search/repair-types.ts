/**
 * The types of query repair (`repair.ts` mends a query, `repair-vocabulary.ts` builds what it reads): here, so that
 * neither file imports the other's types back.
 */
/** Why a query token changed. */
export type RepairReason = 'spelling' | 'split' | 'join' | 'abbreviation' | 'acronym';

/** One change of a query. */
export interface RepairChange {
  /** The query text that changed (one token, or two for a join). */
  from: string;
  /**
   * What it became (`spelling`, `split`, `join`); for `abbreviation` and `acronym` the words added after `from`,
   * which stays in the query.
   */
  to: string;
  reason: RepairReason;
  /** Edit distance of a spelling correction. */
  distance?: number;
  /** Where an expansion comes from: `repair.json`, `corpus` (a long name or abstract) or `gcmd`. */
  source?: string;
}

/** What `repairQuery` did to a query. */
export interface QueryRepair {
  /** The text before repair. */
  original: string;
  /** The text after repair (equal to `original` when only a note is given). */
  repaired: string;
  changes: RepairChange[];
  /** Set when the query looks written in another language: the corpus is English. */
  note?: string;
  /** The language detected (`fr`, `es`, `de`, `pt`, `it`, `cjk`, `cyrillic`, `arabic`), with `note`. */
  language?: string;
}

/** Thresholds of query repair. Every field has a default. */
export interface RepairOptions {
  /** A token is known when it occurs at least this often in the corpus fields. Default 2 (once may be a typo). */
  minKnownFrequency?: number;
  /** A correction, split part or join must occur at least this often. Default 3. */
  minTargetFrequency?: number;
  /** ... and at least this many times as often as the token it replaces. Default 10. */
  targetRatio?: number;
  /** Tokens with fewer letters are never corrected. Default 4. */
  minLetters?: number;
  /** Tokens of at least this many letters may be corrected by 2 edits; shorter ones by 1. Default 10. */
  twoEditsFrom?: number;
  /**
   * Frequency weight of the edit distance: a candidate's cost is `distance − w · log10(frequency)`, so among
   * candidates within the allowed edits the nearest wins unless another is far more frequent (w = 0.5: 100 times as
   * frequent buys one edit). Default 0.5.
   */
  frequencyWeight?: number;
  /**
   * Spelling, split and join need a corpus of at least this many datasets: in a handful of records most correct words
   * are unknown. Abbreviations, acronyms and the language note work on any corpus. Default 100.
   */
  minCorpusDatasets?: number;
  /** A split ("landsurface" → "land surface") needs the two words side by side this often in the corpus. Default 2. */
  minSplitPhraseCount?: number;
  /** An acronym found in the corpus needs this many occurrences with the same expansion. Default 2. */
  minAcronymCount?: number;
  /**
   * GCMD science keywords CSV; `null`: none. Default: `gcmd-sciencekeywords.csv` in the corpus's folder
   * (`corpus.origin`) or the folder above it (the sample snapshot lies inside the full one); none when neither has it.
   */
  gcmdFile?: string | null;
}

/** Resolved options (every default filled in). */
export type ResolvedRepairOptions = Required<Omit<RepairOptions, 'gcmdFile'>>;

/** The corpus's vocabulary for repair. */
export interface RepairVocabulary {
  /** Lower-case token → occurrences in the datasets' fields (dictionary words count `minTargetFrequency` each). */
  frequency: Map<string, number>;
  /** Lower-case token → occurrences written in capitals (tells acronyms from words: "LST" vs "ice"). */
  capitals: Map<string, number>;
  /** Lower-case tokens of platforms, instruments, projects, short names and DAACs (never corrected). */
  identifiers: Set<string>;
  /**
   * SymSpell deletes index, sorted: `hash · 2^20 + t` for every deletion variant (hashed) of the first `PREFIX`
   * letters of correction target `targets[t]`.
   */
  deletes: Float64Array;
  /** Correction targets: known letter-only tokens, in the order the index numbers them. */
  targets: string[];
  /** Lower-case abbreviation → expansion (`repair.json`). */
  abbreviations: Map<string, string>;
  /** Lower-case acronym → its most frequent expansion in the corpus / GCMD. */
  acronyms: Map<string, { expansion: string; source: 'corpus' | 'gcmd' }>;
  /** English function words. */
  english: Set<string>;
  /** Tokens of the gazetteer's place names (not evidence that a query is English). */
  placeWords: Set<string>;
  /** Other languages' function words and diacritics. */
  languages: { code: string; name: string; words: Set<string>; diacritics: string }[];
  options: ResolvedRepairOptions;
  /**
   * How often two words stand side by side (space or hyphen between) in the datasets' long names, abstracts and
   * keywords, counting up to `max`: a scan of the corpus, run only for a split candidate (a rare event).
   */
  phraseCount: (a: string, b: string, max: number) => number;
  /** Whether spelling, split and join are on (the corpus has `minCorpusDatasets` datasets). */
  spelling: boolean;
  /** The GCMD file read, or null. */
  gcmdFile: string | null;
  /** `built` from the corpus, or read from the disk `cache` (`loadRepairVocabulary`). */
  source: 'built' | 'cache';
  /** Milliseconds the build (or the cache read) took; per stage: `corpus` (tokens, identifiers, acronyms), `dictionary`, `deletes` (or `cache`). */
  buildMs: number;
  buildStages: Record<string, number>;
}
