// Shared by the fusion-study tests: a five-dataset corpus, train/test split views with one positive per query, and a
// topic-matching semantic scorer (0.9 on its topic's dataset, 0.2 elsewhere), so α, fused runs and Table 2 rows are
// small enough to check by hand.
import { makeCorpus, type DatasetRecord } from '../../lib/data';
import { type CorpusScorer } from '../../lib/retrieve';

function ds(id: string, longName: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

export const toyCorpus = makeCorpus([ds('C1-A', 'ozone column'), ds('C2-A', 'sea ice extent'), ds('C3-A', 'aerosol optical depth'), ds('C4-A', 'rainfall rate'), ds('C5-A', 'snow cover')], [], [], 'toy');

const view = (qs: [string, string, string][]) => ({
  queries: qs.map(([id, text]) => ({ id, text, publicationId: id })),
  qrels: new Map(qs.map(([id, , d]) => [id, new Map([[d, 1]])])),
}) as never;

export const toySplits = {
  train: view([['t1', 'ozone', 'C1-A'], ['t2', 'smoke haze', 'C3-A'], ['t3', 'sea ice', 'C2-A'], ['t4', 'precipitation', 'C4-A']]),
  test: view([['e1', 'ozone column', 'C1-A'], ['e2', 'smoke', 'C3-A'], ['e3', 'snowpack', 'C5-A']]),
};

/** The topic-matching semantic scorer, under the given id and label. */
export function toySemantic(id = 'sem', label = 'Sem'): CorpusScorer {
  return {
    id, label, fingerprint: `${id}@1`,
    async scoreBatch(texts) {
      const topic = (t: string) => (/smoke|aerosol|haze/.test(t) ? 'aerosol' : /precip|rain/.test(t) ? 'rainfall' : /snow/.test(t) ? 'snow' : /ozone/.test(t) ? 'ozone' : 'ice');
      return texts.map((t) => Float32Array.from(toyCorpus.datasets, (d) => (d.longName.includes(topic(t)) ? 0.9 : 0.2)));
    },
  };
}
