import { EoError } from '../errors';
import { sha256 } from '../util/hash';
import type { Corpus, DatasetRecord, Publication, PublicationLink } from './types';

/**
 * Assemble a Corpus from validated records: checks unique ids and that every link resolves, and computes the
 * corpus hash (over ids and every text field the scorers read) that keys caches, and the data hash (that hash plus
 * every publication and every kept link) that benchmarks and trained checkpoints record.
 */
export function makeCorpus(
  datasets: DatasetRecord[],
  publications: Publication[],
  links: PublicationLink[],
  origin: string,
  opts: { dropDanglingLinks?: boolean } = {},
): Corpus {
  const indexById = new Map<string, number>();
  datasets.forEach((d, i) => {
    if (indexById.has(d.id)) throw new EoError('DATA_INVALID', `${origin}: duplicate dataset id ${d.id}`, { id: d.id });
    indexById.set(d.id, i);
  });
  const pubIds = new Set<string>();
  for (const p of publications) {
    if (pubIds.has(p.id)) throw new EoError('DATA_INVALID', `${origin}: duplicate publication id ${p.id}`, { id: p.id });
    pubIds.add(p.id);
  }
  const kept: PublicationLink[] = [];
  for (const l of links) {
    const ok = indexById.has(l.datasetId) && pubIds.has(l.publicationId);
    if (ok) kept.push(l);
    else if (!opts.dropDanglingLinks)
      throw new EoError('DATA_INVALID', `${origin}: link ${l.publicationId} -> ${l.datasetId} points outside the corpus`, { link: l });
  }
  const h = sha256(
    datasets
      .map((d) => [d.id, d.shortName ?? '', d.longName, d.abstract, d.doi ?? '', d.daac, d.temporalStart ?? '', d.temporalEnd ?? '', d.keywords.join('|'), d.platforms.join('|'), d.instruments.join('|')].join('\u0001'))
      .join('\u0002'),
  ).slice(0, 16);
  return { datasets, publications, links: kept, origin, hash: h, dataHash: corpusDataHash(h, publications, kept), indexById };
}

/**
 * Hash of everything a benchmark is built from: the datasets (their corpus hash), each publication's id, DOI, title,
 * abstract, year and venue (what query writers read), and each link's publication, dataset and relation (the labels),
 * in file order. Provenance fields (`source`, `sources`) are left out: they change no query and no label.
 */
export function corpusDataHash(datasetsHash: string, publications: readonly Publication[], links: readonly PublicationLink[]): string {
  const pubs = publications.map((p) => [p.id, p.doi ?? '', p.title, p.abstract ?? '', p.year ?? '', p.venue ?? ''].join('\u0001')).join('\u0002');
  const ls = links.map((l) => [l.publicationId, l.datasetId, l.relation].join('\u0001')).join('\u0002');
  return sha256(`datasets=${datasetsHash}\u0003publications=${pubs}\u0003links=${ls}`).slice(0, 16);
}

/** Dataset ids linked to each publication, optionally filtered by relation. */
export function datasetsByPublication(corpus: Corpus, relations?: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of corpus.links) {
    if (relations && !relations.includes(l.relation)) continue;
    let list = out.get(l.publicationId);
    if (!list) out.set(l.publicationId, (list = []));
    if (!list.includes(l.datasetId)) list.push(l.datasetId);
  }
  return out;
}

const idsByDatasets = new WeakMap<readonly DatasetRecord[], readonly string[]>();

/**
 * The corpus's dataset ids in corpus order (the ids every top-k breaks ties with), built once per datasets array: a
 * service ranks every request with them.
 */
export function datasetIds(corpus: Pick<Corpus, 'datasets'>): readonly string[] {
  let ids = idsByDatasets.get(corpus.datasets);
  if (!ids || ids.length !== corpus.datasets.length) {
    ids = Object.freeze(corpus.datasets.map((d) => d.id));
    idsByDatasets.set(corpus.datasets, ids);
  }
  return ids;
}
