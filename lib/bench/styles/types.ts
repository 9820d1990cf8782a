import type { Qrels } from '../../metrics/types';

/** The four ways users phrase a dataset search that the style benchmark covers. */
export const QUERY_STYLES = ['question', 'keyword', 'identifier', 'misspelled'] as const;
export type QueryStyle = (typeof QUERY_STYLES)[number];

/** Dev half: for tuning only. Test half: reported, never trained or tuned on. */
export type StyleSplit = 'dev' | 'test';

/**
 * A string pattern of a rule: a case-insensitive regular expression (JavaScript syntax, unanchored, so
 * `"MOD11"` matches anywhere; write `^…$` to anchor). An array matches when any of its patterns matches.
 */
export type StylePattern = string | string[];

/**
 * Dataset record fields a rule may test with patterns. Array fields (platforms, instruments, projects, keywords)
 * match when any element matches; a missing value (shortName null, processingLevel null) never matches.
 */
export const RULE_TEXT_FIELDS = ['shortName', 'longName', 'abstract', 'daac', 'platforms', 'instruments', 'projects', 'keywords', 'processingLevel'] as const;
export type RuleTextField = (typeof RULE_TEXT_FIELDS)[number];

/**
 * A label rule over the corpus fields (JSON in topics.json). An object with several keys requires all of them
 * (implicit `all`). Keys:
 * - a text field (`RULE_TEXT_FIELDS`) → a `StylePattern`;
 * - `temporalOverlaps: [start, end]` (ISO dates): the dataset's [temporalStart, temporalEnd] overlaps the period
 *   (an open end means "ongoing"; a dataset without temporalStart never matches);
 * - `all: rule[]` (every one), `any: rule[]` (at least one), `not: rule`.
 */
export type StyleRule = { [K in RuleTextField]?: StylePattern } & {
  temporalOverlaps?: [string, string];
  all?: StyleRule[];
  any?: StyleRule[];
  not?: StyleRule;
};

/** A dataset the topic's author looked at by hand, and the grade they confirmed (0 = checked and not relevant). */
export interface CheckedDataset {
  id: string;
  grade: 0 | 1 | 2;
}

/**
 * A query that asks for something narrower than its topic's `exact` rule (one processing level, one platform, one
 * resolution, one temporal resolution, one version, a named short name). In topics.json it is written as an object
 * where a plain query is a string.
 */
export interface StyleQueryOverride {
  /** The query as the user types it. */
  text: string;
  /**
   * Grade 2 for this query only: the datasets of the topic's family (family rule ∪ topic exact) that this rule
   * selects. The rest of the family, the topic's other exact datasets included, is grade 1 for this query. On a
   * strict build it must select at least one family dataset.
   */
  exact: StyleRule;
  /** Datasets looked at by hand for this query, with the grade this query gives them. */
  checked?: CheckedDataset[];
  /** Why this query is narrower than its topic. */
  notes?: string;
}

/** A query of a topic: its text (labels of the topic), or an object with a per-query exact override. */
export type StyleTopicQuery = string | StyleQueryOverride;

/** One information need with its label rules and the queries that express it. */
export interface StyleTopic {
  /** Kebab-case, unique in the file. */
  id: string;
  /** One sentence: what the user wants. */
  need: string;
  /** Main discipline: the stratum of the dev/test split (e.g. `atmosphere`, `ocean`, `land`, `cryosphere`). */
  discipline: string;
  /** Grade 2: the asked product at the asked level/resolution/period. */
  exact: StyleRule;
  /** Grade 1: the same product family (every exact dataset is added to it). */
  family: StyleRule;
  /** At least one query per style; a query is a string or a `StyleQueryOverride` (its own grade-2 rule). */
  queries: Record<QueryStyle, StyleTopicQuery[]>;
  /** Why the rule is right, edge cases. */
  notes?: string;
  /** Datasets looked at by hand when spot-checking the rules. */
  checked?: CheckedDataset[];
}

/** One benchmark query. Ids are `<topicId>/<style>/<n>` (n from 1, in file order). */
export interface StyleQuery {
  id: string;
  topicId: string;
  style: QueryStyle;
  text: string;
  split: StyleSplit;
  /** True when the query's grade-2 labels come from its own `exact` override instead of the topic's. */
  narrowed: boolean;
}

/** A topic the builder left out on this corpus, and why. */
export interface DroppedStyleTopic {
  id: string;
  reason: string;
}

/** A query the builder left out on this corpus (its override selects no family dataset; only without `strict`). */
export interface DroppedStyleQuery {
  id: string;
  reason: string;
}

/** Labels of one topic on one corpus. */
export interface StyleTopicLabels {
  id: string;
  split: StyleSplit;
  discipline: string;
  /** Dataset ids with grade 2, sorted. */
  exact: string[];
  /** Dataset ids with grade 1 (family minus exact), sorted. */
  family: string[];
}

export interface StyleBenchmark {
  name: 'eo-styles';
  /** `corpus.hash` of the corpus the labels were computed on. */
  corpusHash: string;
  /** Short hash of the topics (file content as parsed), so labels from another topic file are told apart. */
  topicsHash: string;
  seed: number;
  /** Labels of the topics kept on this corpus. */
  topics: StyleTopicLabels[];
  queries: StyleQuery[];
  /** query id → dataset id → grade (2 exact, 1 family). */
  qrels: Qrels;
  /** topic id → side, for every topic of the file (kept or dropped: the side does not depend on the corpus). */
  split: Map<string, StyleSplit>;
  /** Topics left out because no dataset of this corpus has grade 2 (only without `strict`). */
  droppedTopics: DroppedStyleTopic[];
  /** Queries of kept topics left out because their exact override selects no family dataset (only without `strict`). */
  droppedQueries: DroppedStyleQuery[];
}

export interface BuildStyleBenchmarkOptions {
  /** Topics to use. Default: the shipped `lib/bench/styles/topics.json` (`loadStyleTopics()`). */
  topics?: StyleTopic[];
  /** Seed of the topic-level split. Default 42. */
  seed?: number;
  /** Share of topics on the test side (per stratum, rounded). Default 0.5. */
  testFraction?: number;
  /**
   * Fail with `EoError('BENCH')` when an `exact` or `family` rule, or a query's exact override (within the
   * family), selects no dataset, instead of dropping the topic or the query. Default: true unless the corpus is
   * the 200-dataset sample snapshot (its origin folder is `sample`).
   */
  strict?: boolean;
}

/** The shape `searchBatch` takes, with the qrels of the same queries. */
export interface StyleSplitView {
  queries: { id: string; text: string }[];
  qrels: Qrels;
}

/** Counts of one style × split cell (`style: 'all'` sums the styles). */
export interface StyleStatsRow {
  style: QueryStyle | 'all';
  split: StyleSplit | 'all';
  topics: number;
  queries: number;
  /** Mean number of grade-2 datasets per query. */
  meanExact: number;
  /** Mean number of grade-1 datasets per query. */
  meanFamily: number;
}
