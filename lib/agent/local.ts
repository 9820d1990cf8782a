import { makeCorpus } from '../data/corpus';
import type { Corpus, DatasetRecord, Publication } from '../data/types';
import { buildBm25, bm25TopK, type Bm25Index } from '../retrieve/bm25';
import { ARXIV_TOOL_DESCRIPTION, searchArgs, SEARCH_TOOL_PARAMETERS } from './arxiv';
import { WEB_TOOL_DESCRIPTION } from './web';
import type { AgentTool, ToolItem } from './types';
import { trainingLinks, trainingPublications, type RerankExperiment } from '../rerank/experiment';

/** A BM25 index over the snapshot's publications (title, abstract, DOI), built with the retrieval BM25. */
export interface LocalPublicationIndex {
  publications: Publication[];
  bm25: Bm25Index;
  /** Publication id → dataset ids shown with it (only what the caller allowed: e.g. training-split links). */
  datasetLinks: Map<string, string[]>;
}

/** Publications as records of the BM25 builder (title → longName, abstract, DOI). */
function publicationRecords(pubs: readonly Publication[]): DatasetRecord[] {
  return pubs.map((p) => ({
    id: p.id, shortName: null, longName: p.title, abstract: p.abstract ?? '', doi: p.doi, daac: '', publisher: null,
    temporalStart: null, temporalEnd: null, keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null,
    landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  }));
}

/**
 * Index the publications for the offline `arxiv_search`. `datasetLinks` (default none) adds the datasets a
 * publication uses to its results (pass training-split links only, so no test label can reach a reranker).
 */
export function buildLocalPublicationIndex(publications: readonly Publication[], datasetLinks: Map<string, string[]> = new Map()): LocalPublicationIndex {
  const c = makeCorpus(publicationRecords(publications), [], [], 'publications');
  return { publications: [...publications], bm25: buildBm25(c, { fields: ['longName', 'abstract', 'doi'] }), datasetLinks };
}

/** BM25 search over the local publications. */
export function searchLocalPublications(idx: LocalPublicationIndex, query: string, k: number): ToolItem[] {
  const ids = idx.publications.map((p) => p.id);
  return bm25TopK(idx.bm25, query, k, ids).map((h) => {
    const p = idx.publications[h.index];
    return {
      title: p.title, snippet: p.abstract ?? '', doi: p.doi?.toLowerCase() ?? undefined, id: p.id, year: p.year ?? undefined,
      url: p.doi ? `https://doi.org/${p.doi}` : undefined, datasetIds: idx.datasetLinks.get(p.id),
    };
  });
}

/** Offline `arxiv_search`: the same spec as the live tool, answered from the local publication index. */
export function localArxivTool(idx: LocalPublicationIndex): AgentTool {
  return {
    spec: { name: 'arxiv_search', description: ARXIV_TOOL_DESCRIPTION, parameters: { ...SEARCH_TOOL_PARAMETERS } },
    mode: 'offline',
    async run(args) {
      const { query, maxResults } = searchArgs(args);
      return { items: searchLocalPublications(idx, query, maxResults), source: 'local publications (snapshot)' };
    },
  };
}

/**
 * Offline `web_search` / `sde_search`: dataset documentation = the snapshot's dataset records, searched with the
 * corpus BM25 index (the same index retrieval uses).
 */
export function localDatasetDocsTool(corpus: Corpus, bm25: Bm25Index, name: 'web_search' | 'sde_search' = 'web_search'): AgentTool {
  const ids = corpus.datasets.map((d) => d.id);
  return {
    spec: {
      name,
      description: name === 'web_search' ? WEB_TOOL_DESCRIPTION : 'Search NASA Science Discovery Engine documentation of Earth science datasets.',
      parameters: { ...SEARCH_TOOL_PARAMETERS },
    },
    mode: 'offline',
    async run(args) {
      const { query, maxResults } = searchArgs(args);
      const items = bm25TopK(bm25, query, maxResults, ids).map((h) => {
        const d = corpus.datasets[h.index];
        return { title: d.shortName ? `${d.shortName}: ${d.longName}` : d.longName, snippet: d.abstract, id: d.id, doi: d.doi?.toLowerCase() ?? undefined, url: d.landingPage ?? undefined };
      });
      return { items, source: 'local dataset documentation (snapshot)' };
    },
  };
}

/**
 * The local `arxiv_search` a reranker is TRAINED with (`trainRoutedReranker`): the training split's publications
 * only, each with its training-split dataset links, so that no test publication's text or label shapes a model.
 * At test time use an index of all publications (the leakage guard removes each query's own).
 */
export function trainingPublicationTool(exp: Pick<RerankExperiment, 'bench' | 'corpus' | 'train'>): AgentTool {
  return localArxivTool(buildLocalPublicationIndex(trainingPublications(exp), trainingLinks(exp)));
}
