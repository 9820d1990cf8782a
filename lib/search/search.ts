import { datasetIds } from '../data/corpus';
import { platformsOrInstruments } from '../data/gcmd-infer';
import { datasetLandingPage } from '../data/text';
import type { DatasetRecord } from '../data/types';
import { explainFused, fuseWithParts, type FusedScores } from '../fuse/scorer';
import { queryFusionSpec } from './adaptive-fusion';
import { rerankList } from '../rerank/compose';
import type { RerankCandidate, RerankTrace } from '../rerank/types';
import type { StageTimes } from '../retrieve/scorers';
import { topKScoredHits } from '../retrieve/topk';
import { decideToolsLlm } from '../router/llm';
import { parseQuery } from '../router/parse';
import { candidateOf, finishRoute } from '../router/route';
import { decideTools } from '../router/decide';
import type { ParsedQuery, RouteResult, ToolDecision } from '../router/types';
import { describeConstraintEffect } from './constraints';
import { describeIdentifierEffects, describeLackedIdentifiers, TYPE_KINDS, type NamedIdentifier } from './identifiers';
import { describeTypeMatch, gcmdTypeVocabulary, type NamedGcmdType } from './gcmd-types';
import { applyQueryRules, queryIdentifiers } from './rules';
import { computeFacets } from './facets';
import { applyFilters, canonicalIgnore, hasFilters } from './filters';
import { repairQuery } from './repair';
import { loadRepairVocabulary } from './repair-vocabulary';
import { retrievalText } from '../router/parse';
import type { RankedDataset, ScoreComponent, SearchEngine, SearchOptions, SearchResponse } from './types';

/** CMR concept page of a dataset. */
export function cmrConceptUrl(d: Pick<DatasetRecord, 'id'>): string {
  return `https://cmr.earthdata.nasa.gov/search/concepts/${encodeURIComponent(d.id)}.html`;
}

/** Earthdata Search page of a collection. */
export function earthdataSearchUrl(d: Pick<DatasetRecord, 'id'>): string {
  return `https://search.earthdata.nasa.gov/search/granules?p=${encodeURIComponent(d.id)}`;
}

/** One query's scores on the engine: the final vector and, where there are two scorers, the fused parts. */
export interface QueryScores {
  final: Float32Array;
  lexical: Float32Array | null;
  semantic: Float32Array | null;
  /** Fused scores with their parts (two scorers only). */
  fused: FusedScores | null;
  /** The identifiers the retrieval text names (found before fusing: the adaptive α reads them). */
  named: NamedIdentifier[];
  lexicalMs: number;
  semanticMs: number;
  fuseMs: number;
}

/** Retrieve and fuse one (already rewritten) retrieval text on the engine; `original`: the query as typed (how it reads). */
export async function scoreQuery(engine: SearchEngine, retrievalText: string, stages?: StageTimes, original = retrievalText): Promise<QueryScores> {
  const t0 = performance.now();
  const lexical = engine.lexical ? (await engine.lexical.scoreBatch([retrievalText]))[0] : null;
  const t1 = performance.now();
  const semantic = engine.semantic ? (await engine.semantic.scoreBatch([retrievalText], undefined, stages))[0] : null;
  const t2 = performance.now();
  const named = queryIdentifiers(engine, retrievalText);
  const fused = lexical && semantic ? fuseWithParts(queryFusionSpec(engine, retrievalText, named, lexical, semantic, original), semantic, lexical) : null;
  const final = fused ? fused.scores : (lexical ?? semantic)!;
  return { final, lexical, semantic, fused, named, lexicalMs: t1 - t0, semanticMs: t2 - t1, fuseMs: performance.now() - t2 };
}

const pct = (x: number, tot: number) => (tot > 0 ? Math.round((100 * x) / tot) : 0);

/** The explanation of one dataset's score: each scorer's raw score, normalised score and contribution, and a line. */
export function explainResult(engine: SearchEngine, s: QueryScores, index: number): Pick<RankedDataset, 'score' | 'components' | 'stage' | 'why'> {
  const lexId = engine.lexical?.id ?? '';
  const semId = engine.semantic?.id ?? '';
  if (s.fused) {
    const x = explainFused(s.fused, index);
    const lexical: ScoreComponent = { scorer: lexId, raw: x.rawLexical, normalized: x.lexicalNormalized, contribution: x.lexical };
    const semantic: ScoreComponent = { scorer: semId, raw: x.rawSemantic, normalized: x.semanticNormalized, contribution: x.semantic };
    const tot = x.lexical + x.semantic;
    const stage: RankedDataset['stage'] = x.lexical >= (2 / 3) * tot ? 'bm25' : x.semantic >= (2 / 3) * tot ? 'semantic' : 'both';
    const how = engine.fusion.spec!.method === 'rrf' ? `RRF k=${engine.fusion.spec!.k}` : `α = ${x.alpha.toFixed(3)}`;
    const why = `${engine.lexical!.label} contributes ${x.lexical.toFixed(3)} (${pct(x.lexical, tot)}%), ${engine.semantic!.label} ${x.semantic.toFixed(3)} (${pct(x.semantic, tot)}%), ${how}` +
      (x.rawLexical === 0 ? ': no query term matched, found by meaning' : '');
    return { score: x.score, components: { lexical, semantic }, stage, why };
  }
  const v = s.final[index];
  const c: ScoreComponent = { scorer: engine.lexical ? lexId : semId, raw: v, normalized: v, contribution: v };
  return engine.lexical
    ? { score: v, components: { lexical: c, semantic: null }, stage: 'bm25', why: `${engine.lexical.label} ${v.toFixed(3)} (query terms in its metadata)` }
    : { score: v, components: { lexical: null, semantic: c }, stage: 'semantic', why: `${engine.semantic!.label} ${v.toFixed(3)} (similar in meaning)` };
}

/**
 * Ranked datasets of one query's scores: the top `k` (ties by dataset id descending, as trec_eval), each explained.
 * Datasets that nothing matched are dropped: score 0 under BM25 alone or a convex fusion (their minimum on every
 * scorer). Semantic-only and RRF scores are never 0.
 */
export function rankedDatasets(engine: SearchEngine, s: QueryScores, k: number): RankedDataset[] {
  const ids = datasetIds(engine.corpus);
  const dropZero = engine.fusion.mode === 'convex' || engine.fusion.mode === 'lexical';
  const hits = topKScoredHits(s.final, k, ids).filter((h) => !dropZero || h.score > 0);
  return hits.map((h, i) => {
    const d = engine.corpus.datasets[h.index];
    return {
      rank: i + 1, id: d.id, shortName: d.shortName, longName: d.longName, daac: d.daac,
      temporal: { start: d.temporalStart, end: d.temporalEnd },
      ...platformsAndInstruments(d),
      ...explainResult(engine, s, h.index),
      links: { detail: `/dataset/${encodeURIComponent(d.id)}`, landingPage: datasetLandingPage(d), earthdataSearch: earthdataSearchUrl(d), cmr: cmrConceptUrl(d) },
    };
  });
}

/** A result's platforms and instruments: CMR's, else the inferred ones, and which are inferred. */
function platformsAndInstruments(d: DatasetRecord): Pick<RankedDataset, 'platforms' | 'instruments' | 'inferred'> {
  const platforms = platformsOrInstruments(d, 'platforms');
  const instruments = platformsOrInstruments(d, 'instruments');
  // a field is marked inferred when inferred names stand in it
  const inferred = ([['platforms', platforms], ['instruments', instruments]] as const).filter(([, c]) => c.inferred && c.names.length > 0).map(([f]) => f);
  return { platforms: platforms.names, instruments: instruments.names, inferred };
}

function routerSummary(route: RouteResult): NonNullable<SearchResponse['router']> {
  return {
    router: route.router, fallThrough: route.fallThrough, decisions: route.decisions, actions: route.actions, notes: route.notes,
    parsed: {
      period: route.parsed.period,
      places: route.parsed.places.map((m) => ({ name: m.place.name, bbox: m.place.bbox, source: m.place.source, text: m.span.text })),
      variables: route.parsed.variables.map((v) => ({ gcmd: v.gcmd, via: v.via, text: v.span.text })),
      intents: route.parsed.intents.map((i) => ({ intent: i.intent, cue: i.cue })),
    },
  };
}

/** Stage 1's tool decisions for a parsed question: the rule router, or an LLM router that falls back to the rules. */
async function routeQuery(
  engine: SearchEngine, parsed: ParsedQuery, routerChoice: NonNullable<SearchOptions['router']>, log: SearchOptions['log'],
): Promise<{ decisions: ToolDecision[]; routerName: string; notes: string[] }> {
  if (routerChoice === false) return { decisions: [], routerName: 'rules', notes: [] };
  const base = { resolveShortName: engine.resolveShortName, retrievalFollows: true };
  if (routerChoice === 'rules') return { decisions: decideTools(parsed, base), routerName: 'rules', notes: [] };
  try {
    const r = await decideToolsLlm(parsed, { ...base, client: routerChoice });
    return { decisions: r.decisions, routerName: r.router, notes: [...r.notes] };
  } catch (e) {
    log?.(e);
    return { decisions: decideTools(parsed, base), routerName: 'rules', notes: ['the LLM router was unavailable; the rule router answered'] };
  }
}

/**
 * Ranked results with what the query rules did to each (the period/place effect, the identifiers it lacks, its
 * score after the rules, the GCMD types named in the query that it carries); those the rules removed ('filter' mode)
 * are dropped and the ranks renumbered.
 */
function withRuleEffects(engine: SearchEngine, results: RankedDataset[], ruled: ReturnType<typeof applyQueryRules>, ruledScores: Float32Array): RankedDataset[] {
  const { asked, constrained, identified } = ruled;
  const types = namedTypesOf(engine, ruled);
  return results
    .map((r) => {
      const i = engine.corpus.indexById.get(r.id)!;
      const e = constrained?.effectOf(i);
      const lacks = identified?.lackedBy(i) ?? [];
      const type = types.length ? describeTypeMatch(engine.corpus.datasets[i], types, gcmdTypeVocabulary(engine.corpus)) : null;
      if (!e && lacks.length === 0 && !type) return r;
      return {
        ...r,
        ...(e || lacks.length ? { score: ruledScores[i] } : {}),
        ...(e ? { constraint: describeConstraintEffect(engine.corpus.datasets[i], e, asked) } : {}),
        ...(lacks.length ? { identifier: describeLackedIdentifiers(lacks, identified!.factorOf(i)) } : {}),
        ...(type ? { type } : {}),
      };
    })
    .filter((r) => Number.isFinite(r.score)) // 'filter' mode
    .map((r, j) => ({ ...r, rank: j + 1 }));
}

/** The GCMD types among the identifiers the rule applied (not named as context, not removed). */
function namedTypesOf(engine: SearchEngine, ruled: ReturnType<typeof applyQueryRules>): NamedGcmdType[] {
  const applied = new Set((ruled.identified?.effects ?? []).filter((e) => e.applied && TYPE_KINDS.includes(e.kind)).flatMap((e) => e.id.split(' or ')));
  if (applied.size === 0) return [];
  const vocab = gcmdTypeVocabulary(engine.corpus);
  return ruled.named.filter((n) => applied.has(n.group.id) && TYPE_KINDS.includes(n.group.kind)).flatMap((n) => vocab.types.filter((t) => t.term.id === n.group.id).map((type) => ({ text: n.text, type })));
}

/** The optional rerank: the results (with their retrieval scores) reordered by the reranker, and its traces. */
async function rerankResults(
  engine: SearchEngine, query: string, results: RankedDataset[], rerank: NonNullable<SearchOptions['rerank']>,
): Promise<{ results: RankedDataset[]; traces: RerankTrace[] }> {
  const byId = new Map(results.map((r) => [r.id, r]));
  const candidates: RerankCandidate[] = results.map((r) => ({
    id: r.id, record: engine.corpus.datasets[engine.corpus.indexById.get(r.id)!], retrievalScore: r.score, retrievalRank: r.rank,
    scores: { bm25: r.components.lexical?.raw ?? 0, semantic: r.components.semantic?.raw ?? 0, fused: r.score },
  }));
  const out = await rerankList(rerank.reranker, { query: { id: 'q', text: query }, candidates }, rerank);
  return { results: out.candidates.map((c, i) => ({ ...byId.get(c.id)!, rank: i + 1, retrievalRank: c.retrievalRank })), traces: out.traces };
}

/** The response's `retrieval` block: the scorers, fusion and α used, and what the rules, filters and ignores did. */
function retrievalSummary(
  engine: SearchEngine, scores: QueryScores, ruled: ReturnType<typeof applyQueryRules>, filtered: ReturnType<typeof applyFilters> | null, opts: SearchOptions,
): SearchResponse['retrieval'] {
  const spec = engine.fusion.spec;
  const { asked, constrained } = ruled;
  return {
    label: engine.label, lexical: engine.lexical?.id ?? null, semantic: engine.semantic?.id ?? null, fusion: engine.fusion.mode,
    alpha: scores.fused && !Number.isNaN(scores.fused.alpha) ? scores.fused.alpha : spec?.method === 'convex' ? spec.alpha : null, alphaSource: engine.fusion.source,
    ...(opts.rerank ? { reranker: opts.rerank.reranker.id } : {}),
    constraints: constrained ? { ...asked, mode: opts.constraints?.mode ?? 'demote', moved: constrained.moved } : null,
    identifiers: ruled.identified
      ? { named: ruled.identified.effects.map((e) => ({ text: e.text, id: e.id, kind: e.kind, applied: e.applied, moved: e.moved })), notes: describeIdentifierEffects(ruled.identified.effects, ruled.identified.countedTop) }
      : null,
    ...(filtered ? { filters: filtered.effect } : {}),
    ...(canonicalIgnore(opts.ignore) ? { ignored: opts.ignore } : {}),
  };
}

/**
 * THE query path for one question: parse once (router parser) → route (tool decisions, before retrieval) → retrieve
 * the query without its leading action phrase (`retrievalTextOf`), repaired (`repairQuery`), with every scorer of the engine → fuse (convex with the
 * stored α, or RRF) → optional rerank (Algorithm 1 over windows) → explanation of each result's score parts; the
 * router's actions are then built with the top datasets. `eo search`, `eo serve` and the notebooks call this.
 */
export async function search(engine: SearchEngine, query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
  const k = opts.k ?? 10;
  const now = opts.now ?? new Date();
  const t0 = performance.now();
  const parsed = parseQuery(query, { now, variables: engine.variables });
  const stripped = retrievalText(parsed);
  const tr = performance.now();
  // misspellings, abbreviations and another language are mended (or noted) before any scorer sees the text
  const repair = opts.repair === false ? null : repairQuery(stripped, loadRepairVocabulary(engine.corpus));
  const retrievalQuery = repair?.repaired ?? stripped;
  const t1 = performance.now();
  const routerChoice = opts.router ?? 'rules';
  const { decisions, routerName, notes } = await routeQuery(engine, parsed, routerChoice, opts.log);
  const t2 = performance.now();
  const semanticStages: StageTimes = {};
  const scores = await scoreQuery(engine, retrievalQuery, semanticStages, query);
  const tc = performance.now();
  // the question's period and places, then the identifiers it names, demote (or filter) datasets; explained per result
  const ruled = applyQueryRules(engine, parsed, scores.final, retrievalQuery, { constraints: opts.constraints, identifiers: opts.identifiers, ignore: opts.ignore }, scores.named);
  const { constrained, identified } = ruled;
  const ranked = constrained || identified ? { ...scores, final: ruled.scores } : scores;
  // hard filters (provider, platform, instrument, level, temporal, box: lib/search/filters.ts) remove what fails them
  const filtered = hasFilters(opts.filters) ? applyFilters(ranked.final, engine.corpus, opts.filters) : null;
  const shown = filtered ? { ...ranked, final: filtered.scores } : ranked;
  const depth = opts.rerank ? Math.max(k, opts.rerank.depth ?? opts.rerank.window ?? 10) : k;
  const te = performance.now();
  let results = rankedDatasets(engine, shown, depth);
  if (constrained || identified) results = withRuleEffects(engine, results, ruled, ranked.final);
  if (filtered) results = results.filter((r) => filtered.keeps(engine.corpus.indexById.get(r.id)!)).map((r, j) => ({ ...r, rank: j + 1 }));
  const facets = opts.facets ? computeFacets(shown.final, engine.corpus, { depth: opts.facetDepth, now }) : undefined;
  const t3 = performance.now();
  let rerankTraces: RerankTrace[] | undefined;
  if (opts.rerank && results.length > 1) ({ results, traces: rerankTraces } = await rerankResults(engine, query, results, opts.rerank));
  results = results.slice(0, k);
  const t4 = performance.now();
  const route = routerChoice === false ? null : finishRoute(parsed, decisions, {
    now, router: routerName, notes, resolveShortName: engine.resolveShortName,
    candidates: results.slice(0, opts.routerCandidates ?? 3).map((r) => candidateOf(engine.corpus.datasets[engine.corpus.indexById.get(r.id)!])),
  });
  const t5 = performance.now();
  return {
    query, k, retrievalQuery, repair,
    router: route ? routerSummary(route) : null,
    retrieval: retrievalSummary(engine, scores, ruled, filtered, opts),
    results,
    ...(facets ? { facets } : {}),
    ...(rerankTraces ? { rerankTraces } : {}),
    timings: {
      parseMs: tr - t0, repairMs: t1 - tr, routeMs: t2 - t1 + (t5 - t4), lexicalMs: scores.lexicalMs, semanticMs: scores.semanticMs, fuseMs: scores.fuseMs,
      constraintsMs: te - tc, explainMs: t3 - te, rerankMs: t4 - t3, totalMs: performance.now() - t0,
      ...(Object.keys(semanticStages).length ? { semanticStages } : {}),
    },
  };
}
