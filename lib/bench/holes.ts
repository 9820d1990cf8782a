/**
 * Label holes. Citation labels are silver: a relevant dataset that no paper linked counts as wrong. For each
 * system this measures how much of its top K is unlabelled, how much of that belongs to a labelled dataset's
 * product family (`productFamily`), how much a recorded judge calls relevant, and a holes-aware R@K / MAP that
 * counts same-family datasets as relevant beside the strict one, with the order of the systems under each.
 */
import type { Corpus, DatasetRecord } from '../data/types';
import { evaluateRun, mean, recallAt, summarize } from '../metrics/metrics';
import { sortRunEntries } from '../metrics/rank';
import type { SystemRun } from '../metrics/systems';
import type { Qrels } from '../metrics/types';

/** Name tokens that say which version, processing level, resolution or time step of a product a dataset is. */
const VARIANT_TOKEN = new RegExp('^(?:' + [
  'v?\\d+(?:\\.\\d+)*[a-z]?', // versions, years, collection numbers: v004, 006, 6.1, 2020
  'version', 'edition', 'ed\\d*', 'collection', 'c\\d+', 'r\\d+', 'release',
  'l[0-4][a-z]?', 'level', 'nrt', // processing level, near real time
  '\\d+(?:\\.\\d+)?(?:km|m|deg|min|hr|h|d|day|mon)', '\\d+x\\d+', // resolution, time step
  'daily', 'day', 'monthly', 'month', 'mc', 'hourly', 'yearly', 'annual', 'weekly', 'clim', 'climatology', 'gridded', 'grid',
].join('|') + ')$');

/**
 * The product family of a dataset: its short name (else its long name), lower-cased, split on spaces and
 * punctuation, with the tokens that name a version, processing level, resolution or time step removed
 * (`V004`, `006`, `L2`, `L3A`, `NRT`, `0.25deg`, `3H`, `Monthly`, `Daily`, …), the rest joined by spaces. So
 * `TES/Aura L3 Atmospheric Temperatures Monthly Gridded V004` and `… Daily Gridded V003` are one family, and
 * `GPM_3GPROFF14SSMI_DAY_CLIM` and `GPM_3GPROFF14SSMI_CLIM` too; `VNP43D23` and `VNP43D44` are not (different
 * products). A name with nothing left is its own family (the dataset id).
 */
export function productFamily(d: Pick<DatasetRecord, 'id' | 'shortName' | 'longName'>): string {
  const name = d.shortName || d.longName || '';
  const kept = name.toLowerCase().split(/[^\p{L}\p{N}.]+/u).map((t) => t.replace(/^\.+|\.+$/g, '')).filter((t) => t && !VARIANT_TOKEN.test(t));
  return kept.length ? kept.join(' ') : `id:${d.id}`;
}

/** Qrels where every dataset of a labelled dataset's family is relevant too (relevance 1 unless labelled). */
export function familyQrels(qrels: Qrels, corpus: Pick<Corpus, 'datasets' | 'indexById'>, family: (d: DatasetRecord) => string = productFamily): Qrels {
  const members = new Map<string, string[]>();
  for (const d of corpus.datasets) {
    const f = family(d);
    const l = members.get(f);
    if (l) l.push(d.id); else members.set(f, [d.id]);
  }
  const out: Qrels = new Map();
  for (const [qid, judged] of qrels) {
    const m = new Map(judged);
    for (const [id, rel] of judged) {
      const i = corpus.indexById.get(id);
      if (rel <= 0 || i === undefined) continue;
      for (const other of members.get(family(corpus.datasets[i])) ?? []) if (!m.has(other)) m.set(other, 1);
    }
    out.set(qid, m);
  }
  return out;
}

export interface LabelHolesOptions {
  /** Depth of the top list inspected and of the recall. Default 10. */
  k?: number;
  /** Recorded judge verdicts: query id → dataset id → relevant. Absent: the judge column is null. */
  judged?: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
  /** Family rule. Default `productFamily`. */
  family?: (d: DatasetRecord) => string;
}

/** One system's holes. Shares are over all (query, top-K dataset) pairs of the queries with labels. */
export interface LabelHolesRow {
  system: string;
  /** Share of the top K that has no label. */
  unlabelled: number;
  /** Of the unlabelled, the share in a labelled dataset's family. */
  sameFamily: number;
  /** Of the unlabelled that the judge saw, the share it called relevant; null when it saw none. */
  judgeRelevant: number | null;
  /** Unlabelled pairs with a judge verdict. */
  judgedPairs: number;
  strictRecall: number;
  strictMAP: number;
  holesAwareRecall: number;
  holesAwareMAP: number;
}

export interface LabelHoles {
  k: number;
  rows: LabelHolesRow[];
  /** System labels best first by MAP under each labelling (ties keep the input order). */
  ordering: { strict: string[]; holesAware: string[] };
  /** Whether the two orderings agree. */
  sameOrdering: boolean;
}

/** Label holes of several systems' runs on the same qrels (see `LabelHolesOptions`). */
export function labelHoles(systems: readonly Pick<SystemRun, 'label' | 'run'>[], qrels: Qrels, corpus: Pick<Corpus, 'datasets' | 'indexById'>, opts: LabelHolesOptions = {}): LabelHoles {
  const k = opts.k ?? 10;
  const family = opts.family ?? productFamily;
  const wide = familyQrels(qrels, corpus, family);
  const rows = systems.map((s): LabelHolesRow => {
    let top = 0, unlabelled = 0, same = 0, judgedPairs = 0, judgedRelevant = 0;
    for (const [qid, labels] of qrels) {
      if (![...labels.values()].some((r) => r > 0)) continue;
      const wideLabels = wide.get(qid)!;
      for (const e of sortRunEntries(s.run.get(qid) ?? [], k)) {
        top++;
        if ((labels.get(e.docId) ?? 0) > 0) continue;
        unlabelled++;
        if ((wideLabels.get(e.docId) ?? 0) > 0) same++;
        const v = opts.judged?.get(qid)?.get(e.docId);
        if (v !== undefined) { judgedPairs++; if (v) judgedRelevant++; }
      }
    }
    const strict = evaluateRun(s.run, qrels);
    const aware = evaluateRun(s.run, wide);
    return {
      system: s.label,
      unlabelled: top ? unlabelled / top : 0,
      sameFamily: unlabelled ? same / unlabelled : 0,
      judgeRelevant: judgedPairs ? judgedRelevant / judgedPairs : null,
      judgedPairs,
      strictRecall: recallAtK(s.run, k, qrels),
      strictMAP: summarize(s.label, strict).MAP,
      holesAwareRecall: recallAtK(s.run, k, wide),
      holesAwareMAP: summarize(s.label, aware).MAP,
    };
  });
  const order = (key: 'strictMAP' | 'holesAwareMAP') => rows.map((r, i) => ({ r, i })).sort((a, b) => b.r[key] - a.r[key] || a.i - b.i).map((x) => x.r.system);
  const strict = order('strictMAP');
  const holesAware = order('holesAwareMAP');
  return { k, rows, ordering: { strict, holesAware }, sameOrdering: strict.join('\u0000') === holesAware.join('\u0000') };
}

/** Mean recall at k over the queries with a relevant dataset (`recallAt`, trec_eval semantics). */
function recallAtK(run: SystemRun['run'], k: number, qrels: Qrels): number {
  const xs: number[] = [];
  for (const [qid, labels] of qrels) {
    const relevant = new Set([...labels].filter(([, r]) => r > 0).map(([id]) => id));
    if (relevant.size) xs.push(recallAt(sortRunEntries(run.get(qid) ?? [], 100), relevant, k));
  }
  return mean(xs);
}

/** The holes as table rows for a notebook cell (shares and metrics to 3 decimals, each system's rank under both labellings). */
export function labelHolesRows(h: LabelHoles): Record<string, string | number | null>[] {
  const f = (x: number) => Number(x.toFixed(3));
  return h.rows.map((r) => ({
    system: r.system,
    [`unlabelled in top ${h.k}`]: f(r.unlabelled),
    'of those: same family': f(r.sameFamily),
    'of those: judge relevant': r.judgeRelevant === null ? null : f(r.judgeRelevant),
    [`R@${h.k} strict`]: f(r.strictRecall),
    [`R@${h.k} holes-aware`]: f(r.holesAwareRecall),
    'MAP strict': f(r.strictMAP),
    'MAP holes-aware': f(r.holesAwareMAP),
    'rank strict': h.ordering.strict.indexOf(r.system) + 1,
    'rank holes-aware': h.ordering.holesAware.indexOf(r.system) + 1,
  }));
}
