/** Bounding box `[west, south, east, north]` in degrees (WGS 84). `west > east` means it crosses the antimeridian. */
export type BBox = [number, number, number, number];

/** GCMD names inferred from a record's own text (`DatasetRecord.inferred`). */
export interface GcmdInferred {
  platforms: string[];
  instruments: string[];
  projects: string[];
  /**
   * The GCMD series of its platforms (CMR's when it lists them, else the inferred ones), when not one of them:
   * SENTINEL-1 for SENTINEL-1A, JPSS for NOAA-20, LANDSAT for LANDSAT-8.
   */
  series: string[];
}

/** One NASA CMR collection, in the schema of the offline snapshot (see ../shared/data/eo/README.md). */
export interface DatasetRecord {
  /** CMR collection concept id, e.g. `C1238517323-GES_DISC`. */
  id: string;
  /** CMR ShortName, or null (80% of the snapshot has none). */
  shortName: string | null;
  /** Catalog title (EntryTitle). */
  longName: string;
  abstract: string;
  /** Bare dataset DOI, case preserved; null when absent. */
  doi: string | null;
  /** CMR provider id, e.g. `GES_DISC`. */
  daac: string;
  publisher: string | null;
  temporalStart: string | null;
  temporalEnd: string | null;
  /**
   * Spatial extent `[west, south, east, north]` in degrees (WGS 84), or null/absent when the record has none.
   * `west > east` crosses the antimeridian.
   */
  bbox?: BBox | null;
  keywords: string[];
  platforms: string[];
  instruments: string[];
  projects: string[];
  /**
   * Platforms, instruments and projects inferred from the record's title and short name with the GCMD vocabularies
   * (GCMD short names, upper case; lib/data/gcmd-infer.ts), beside CMR's own `platforms` / `instruments` / `projects`.
   * Set by `loadSnapshot` when the snapshot has the GCMD files; absent otherwise.
   */
  inferred?: GcmdInferred;
  processingLevel: string | null;
  landingPage: string | null;
  shortNameSource: string | null;
  catalogRecordComplete: boolean;
  sources: string[];
}

export interface Publication {
  /** Lower-case DOI, or `title:<sha1 prefix>`. */
  id: string;
  doi: string | null;
  title: string;
  abstract: string | null;
  year: number | null;
  venue: string | null;
  source: string | null;
  sources: string[];
}

/** Publication → dataset edge. `relation` is kept so that it can be filtered (`cites`, `publication_reference`). */
export interface PublicationLink {
  publicationId: string;
  datasetId: string;
  relation: string;
  source: string | null;
  sources: string[];
}

/** A loaded corpus: datasets in one fixed order (every corpus-wide score vector is aligned with it). */
export interface Corpus {
  datasets: DatasetRecord[];
  publications: Publication[];
  links: PublicationLink[];
  /** Where it was read from (folder or URL); informational. */
  origin: string;
  /** Hash over dataset ids and texts; keys every cache built on this corpus. */
  hash: string;
  /**
   * Hash over the datasets (`hash`), the publications and the links (`corpusDataHash`): what a benchmark is built
   * from. Benchmarks and trained checkpoints record it, so one built on other publications or links is refused.
   */
  dataHash: string;
  /** Dataset id → position in `datasets`. */
  indexById: Map<string, number>;
}
