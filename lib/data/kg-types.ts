/**
 * The knowledge-graph mapping's constants, property names and the types of its options, report and result (kg.ts maps;
 * kg-map.ts holds the steps).
 */
import { createHash } from 'node:crypto';
import { bareDoi } from './cmr-record';
import type { KgExportFormat, KgNode } from './kg-graph';
import type { Corpus, Publication } from './types';

/** Value of `source`/`sources` on records read from the knowledge graph. */
export const KG_SOURCE = 'nasa-eo-kg';
/** `relation` of links made from USES_DATASET edges. */
export const KG_USES_DATASET_RELATION = 'uses_dataset';
/** `relation` of links made from CITES edges whose cited end is a Dataset. */
export const KG_CITES_RELATION = 'cites';

/** Properties that may hold a Dataset's CMR concept id, in order. */
export const CONCEPT_ID_PROPS = ['cmrId', 'cmr_id', 'CMR_ID', 'conceptId', 'concept_id', 'collectionConceptId', 'id', 'globalId'];
/** Property names read for each record field (first present wins). */
export const DATASET_PROPS = {
  shortName: ['shortName', 'ShortName', 'short_name'],
  longName: ['longName', 'LongName', 'entryTitle', 'EntryTitle', 'title'],
  abstract: ['abstract', 'Abstract', 'description'],
  doi: ['doi', 'DOI'],
  publisher: ['daac', 'publisher', 'dataCenter'],
  temporalStart: ['temporalExtentStart', 'temporalStart'],
  temporalEnd: ['temporalExtentEnd', 'temporalEnd'],
  keywords: ['keywords', 'scienceKeywords'],
  platforms: ['platforms'],
  instruments: ['instruments'],
  projects: ['projects'],
  processingLevel: ['processingLevel', 'processingLevelId'],
  landingPage: ['landingPageUrl', 'landingPage', 'url'],
} as const;
export const PUBLICATION_PROPS = {
  doi: ['doi', 'DOI'],
  title: ['title', 'Title'],
  year: ['year', 'Year', 'publicationYear'],
  abstract: ['abstract', 'Abstract'],
  venue: ['venue', 'journal', 'containerTitle', 'publicationVenue'],
} as const;
const NAME_PROPS = ['name', 'shortName', 'longName'];
/** Spatial extent of a Dataset in the live graph: two Neo4j points (x = longitude, y = latitude). */
const CORNER_PROPS = ['nwCorner', 'seCorner'];

/** A Neo4j point as APOC exports it (`{x, y}` or `{longitude, latitude}`), or null. */
function pointLonLat(v: unknown): [number, number] | null {
  if (v === null || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const lon = typeof o.x === 'number' ? o.x : o.longitude;
  const lat = typeof o.y === 'number' ? o.y : o.latitude;
  return typeof lon === 'number' && typeof lat === 'number' ? [lon, lat] : null;
}

/** `[west, south, east, north]` from the nwCorner / seCorner points, or null when either is missing. */
export function cornersBBox(n: KgNode): [number, number, number, number] | null {
  const nw = pointLonLat(n.properties.nwCorner);
  const se = pointLonLat(n.properties.seCorner);
  return nw && se ? [nw[0], se[1], se[0], nw[1]] : null;
}

/** The properties the Corpus mapping reads, per label: what the corpus loaders keep of each node. */
export const KG_CORPUS_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  Dataset: [...CONCEPT_ID_PROPS, ...Object.values(DATASET_PROPS).flat(), ...CORNER_PROPS],
  Publication: Object.values(PUBLICATION_PROPS).flat(),
  ScienceKeyword: NAME_PROPS,
  Platform: NAME_PROPS,
  Instrument: NAME_PROPS,
  Project: NAME_PROPS,
  DataCenter: NAME_PROPS,
};

/** Strings the export uses for "missing". */
export const PLACEHOLDER = /^(n\/a|na|none|null|not provided|unknown)$/i;

/** Title normalised as in the snapshot: lower-case ASCII letters/digits separated by single spaces. */
export function normalizePublicationTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Publication id as in the snapshot: lower-case bare DOI, else `title:` + first 12 hex of SHA-1 of the normalised title. */
export function publicationIdFor(doi: string | null, title: string): string {
  const d = bareDoi(doi);
  if (d) return d.toLowerCase();
  return `title:${createHash('sha1').update(normalizePublicationTitle(title)).digest('hex').slice(0, 12)}`;
}

export interface KgToCorpusOptions {
  /** Corpus origin. Default: the export file. */
  origin?: string;
  /**
   * Drop USES_DATASET edges whose publication or dataset is not in the corpus (missing from the export, or skipped)
   * and count them; `false` throws on the first one, naming the relationship's file:line. Default true.
   */
  dropDanglingLinks?: boolean;
  /** A Dataset node with no property holding a CMR collection concept id: `skip` (default, counted) or `error`. */
  onMissingConceptId?: 'skip' | 'error';
  /** A Dataset/Publication node with unusable content (no dataset title, wrong types): `error` (default) or `skip` (counted). */
  onInvalid?: 'error' | 'skip';
  /** Keep titled publications that end up with no USES_DATASET link into the corpus. Default false (the snapshot keeps only linked ones). */
  keepUnlinkedPublications?: boolean;
  /**
   * Give each dataset the instruments of its platforms (HAS_PLATFORM → HAS_INSTRUMENT). Default false: in the KG,
   * Platform→Instrument edges are global, so this lists every instrument ever flown on the platform.
   */
  instrumentsFromPlatforms?: boolean;
}

/** What the mapping kept and skipped, by reason. */
export interface KgCorpusReport {
  format: KgExportFormat;
  /** Nodes per label over the whole export. */
  nodeLabelCounts: Record<string, number>;
  /** Relationships per type over the whole export. */
  relationshipTypeCounts: Record<string, number>;
  /** Datasets, publications and links in the corpus (links: USES_DATASET ones; CITES ones in `citesLinks`). */
  datasets: number;
  publications: number;
  links: number;
  citesLinks: number;
  skippedDatasets: {
    /** No property holds a CMR concept id (the real export never writes such a node). */
    noConceptId: number;
    /** Unusable content, with `onInvalid: 'skip'`. */
    invalid: number;
    /** Concept id repeats an earlier node's (merged into the first). */
    duplicate: number;
  };
  skippedPublications: {
    /** Empty title: citing-only stubs made by CITES edges. */
    emptyTitle: number;
    /** Titled, but no USES_DATASET edge in the export. */
    noUsesDataset: number;
    /** USES_DATASET edges only to datasets not in the corpus. */
    noLinkInCorpus: number;
    /** Unusable content, with `onInvalid: 'skip'`. */
    invalid: number;
    /** Id (DOI / title hash) repeats an earlier node's (merged into the first). */
    duplicate: number;
  };
  skippedLinks: {
    /** USES_DATASET edges with an end not in the corpus. */
    dangling: number;
    /** Of those, edges to Dataset nodes skipped for lack of a concept id. */
    danglingToSkippedDatasets: number;
    /** USES_DATASET / CITES edges repeating a (publication, dataset, relation). */
    duplicate: number;
  };
  cites: {
    /** CITES edges between two publications (not used by the corpus). */
    publicationToPublication: number;
    /** CITES edges whose cited end is a Dataset. */
    publicationToDataset: number;
    /** CITES edges written citing → cited (against the export's usual direction), read the other way round. */
    reversed: number;
  };
  /** Up to 20 messages about skipped nodes and edges, for a quick look. */
  examples: string[];
}

export interface KgCorpusResult {
  corpus: Corpus;
  report: KgCorpusReport;
}
