/**
 * NASA EO Knowledge Graph export (Neo4j; built by the `nasa/edgraph` ingest scripts and published as
 * `nasa-gesdisc/nasa-eo-knowledge-graph`) → Corpus. Reading the file is kg-graph.ts (lines: kg-lines.ts).
 *
 * Node and relationship names follow nasa/edgraph (see ../shared/notes/eo-kg-export-shape.md):
 * - `Dataset` {globalId, doi, shortName, longName, daac (e.g. "NASA/LARC/SD/ASDC"), abstract, cmrId, temporalExtentStart,
 *   temporalExtentEnd, temporalFrequency, landingPageUrl, …}; missing names/DAAC are the string `"N/A"` (read as null).
 *   The real export writes a Dataset only when it has a DOI and a CMR id; one without is skipped and counted.
 *   `id` is the cmrId; `daac` is its CMR provider (as in the snapshot); the KG's `daac` string is kept as `publisher`.
 * - `Publication` {globalId, doi, title, year ("2021" or ""), abstract ("" when none), authors}. Publications created
 *   only as the citing end of a CITES edge have an empty title: they are skipped and counted, as are publications
 *   without a USES_DATASET edge.
 * - `(Publication)-[:USES_DATASET]->(Dataset)`: the benchmark's labels (relation `uses_dataset`).
 * - `CITES` is written cited → citing. When the cited node is a Dataset, the edge becomes a `cites` link of the citing
 *   publication (only for publications kept for their USES_DATASET edges); Publication → Publication citations are counted.
 * - enrichment: `(Dataset)-[:HAS_SCIENCEKEYWORD]->(ScienceKeyword {name})`, `(Dataset)-[:HAS_PLATFORM]->(Platform {shortName})`,
 *   `(Platform)-[:HAS_INSTRUMENT]->(Instrument {shortName})`, `(Dataset)-[:OF_PROJECT]->(Project {shortName})`,
 *   `(DataCenter {shortName})-[:HAS_DATASET]->(Dataset)`.
 */
import { makeCorpus } from './corpus';
import { readKgExport, streamKgExport, type KgGraph, type ReadKgExportOptions } from './kg-graph';
import type { Corpus, DatasetRecord, Publication, PublicationLink } from './types';
import { KG_CORPUS_PROPERTIES, KG_USES_DATASET_RELATION, type KgCorpusReport, type KgCorpusResult, type KgToCorpusOptions } from './kg-types';
import { indexKgGraph, mapKgDatasets, mapKgLinks, mapKgPublications } from './kg-map';

// the names of the parts this module was split into, as before
export { KG_CITES_RELATION, KG_CORPUS_PROPERTIES, KG_SOURCE, KG_USES_DATASET_RELATION, normalizePublicationTitle, publicationIdFor, type KgCorpusReport, type KgCorpusResult, type KgToCorpusOptions } from './kg-types';

/** Map a KgGraph to a Corpus (see the module comment for the property mapping). */
export function kgToCorpus(graph: KgGraph, opts: KgToCorpusOptions = {}): KgCorpusResult {
  const m = indexKgGraph(graph, opts);
  const { report } = m;
  const ds = mapKgDatasets(m, graph);
  const { publications, pubIdByNode } = mapKgPublications(m, graph);
  const links = mapKgLinks(m, graph, ds, pubIdByNode);

  const usesLinked = new Set(links.filter((l) => l.relation === KG_USES_DATASET_RELATION).map((l) => l.publicationId));
  let pubs = [...publications.values()];
  if (!(opts.keepUnlinkedPublications ?? false)) {
    const before = pubs.length;
    pubs = pubs.filter((p) => usesLinked.has(p.id));
    report.skippedPublications.noLinkInCorpus = before - pubs.length;
  }
  const byId = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  const datasets = [...ds.datasets.values()].sort(byId((d: DatasetRecord) => d.id));
  pubs.sort(byId((p: Publication) => p.id));
  links.sort(byId((l: PublicationLink) => `${l.publicationId}\u0001${l.datasetId}\u0001${l.relation}`));
  const corpus = makeCorpus(datasets, pubs, links, opts.origin ?? graph.file, { dropDanglingLinks: true });
  report.datasets = corpus.datasets.length;
  report.publications = corpus.publications.length;
  report.links = corpus.links.filter((l) => l.relation === KG_USES_DATASET_RELATION).length;
  report.citesLinks = corpus.links.length - report.links;
  return { corpus, report };
}

/** Corpus loaders read only the labels/properties the mapping uses, unless told otherwise. */
function corpusReadOptions(opts: ReadKgExportOptions): ReadKgExportOptions {
  return { ...opts, nodeProperties: opts.nodeProperties === undefined ? KG_CORPUS_PROPERTIES : opts.nodeProperties };
}

/** readKgExport + kgToCorpus (synchronous; for small exports and the document formats). */
export function loadKgCorpus(file: string, opts: KgToCorpusOptions & ReadKgExportOptions = {}): KgCorpusResult {
  return kgToCorpus(readKgExport(file, corpusReadOptions(opts)), opts);
}

/** streamKgExport + kgToCorpus: the loader for the real, multi-GB export (JSON lines, plain or `.gz`). */
export async function streamKgCorpus(file: string, opts: KgToCorpusOptions & ReadKgExportOptions = {}): Promise<KgCorpusResult> {
  return kgToCorpus(await streamKgExport(file, corpusReadOptions(opts)), opts);
}

/** The report as text lines: nodes by label, edges by type, what was kept and what was skipped by reason. */
export function formatKgCorpusReport(r: KgCorpusReport): string[] {
  const counts = (o: Record<string, number>) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  return [
    `format: ${r.format}`,
    `nodes by label: ${counts(r.nodeLabelCounts)}`,
    `relationships by type: ${counts(r.relationshipTypeCounts)}`,
    `corpus: ${r.datasets} datasets, ${r.publications} publications, ${r.links} uses_dataset links, ${r.citesLinks} cites links`,
    `skipped datasets: ${counts(r.skippedDatasets)}`,
    `skipped publications: ${counts(r.skippedPublications)}`,
    `skipped links: ${counts(r.skippedLinks)}`,
    `CITES edges: ${counts(r.cites)}`,
  ];
}
