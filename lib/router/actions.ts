import { unionBBox } from './gazetteer';
import { representativeDay } from './time';
import type { ShortNameResolver } from './decide';
import type { BBox, CandidateDataset, ParsedQuery, Period, RouterAction, ToolDecision, VariableMatch } from './types';

/** Base URLs of the tools (documented defaults; override for a mirror or a test server). */
export interface ToolEndpoints {
  /** Default `https://worldview.earthdata.nasa.gov/`. */
  worldview: string;
  /** Default `https://giovanni.gsfc.nasa.gov/giovanni/`. */
  giovanni: string;
  /** Default `https://harmony.earthdata.nasa.gov`. */
  harmony: string;
  /** Default `https://sciencediscoveryengine.nasa.gov/app/nasa-sba-smd/`. */
  sde: string;
  /** Default `https://search.earthdata.nasa.gov/`. */
  earthdataSearch: string;
}

export const DEFAULT_TOOL_ENDPOINTS: ToolEndpoints = {
  worldview: 'https://worldview.earthdata.nasa.gov/',
  giovanni: 'https://giovanni.gsfc.nasa.gov/giovanni/',
  harmony: 'https://harmony.earthdata.nasa.gov',
  sde: 'https://sciencediscoveryengine.nasa.gov/app/nasa-sba-smd/',
  earthdataSearch: 'https://search.earthdata.nasa.gov/',
};

/** Worldview base layers added under a variable layer so the map has context. */
const WORLDVIEW_BASE = ['MODIS_Terra_CorrectedReflectance_TrueColor'];
const WORLDVIEW_OVERLAY = ['Coastlines_15m'];

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export interface ActionContext {
  parsed: ParsedQuery;
  candidates: CandidateDataset[];
  now: Date;
  resolveShortName?: ShortNameResolver;
  endpoints: ToolEndpoints;
}

function area(ctx: ActionContext): { bbox: BBox; source: string } {
  const b = unionBBox(ctx.parsed.places.map((p) => p.place.bbox));
  return b
    ? { bbox: b, source: ctx.parsed.places.map((p) => `${p.place.name} (${p.place.source})`).join(' + ') }
    : { bbox: [-180, -90, 180, 90], source: 'default: global (no place in the query)' };
}

function period(ctx: ActionContext, fallback: 'yesterday' | 'last-year'): { p: Pick<Period, 'start' | 'end'>; source: string } {
  if (ctx.parsed.period) return { p: ctx.parsed.period, source: `query "${ctx.parsed.period.span.text}" (rule ${ctx.parsed.period.rule})` };
  if (fallback === 'yesterday') {
    const d = isoDay(new Date(ctx.now.getTime() - 86_400_000));
    return { p: { start: d, end: d }, source: 'default: the latest full day (no date in the query)' };
  }
  const y = ctx.now.getUTCFullYear() - 1;
  return { p: { start: `${y}-01-01`, end: `${y}-12-31` }, source: 'default: the previous calendar year (no period in the query)' };
}

const fmt = (v: number) => String(Math.round(v * 100) / 100);

/** Worldview permalink: `v` (extent w,s,e,n), `l` (layers, top first), `t` (date). */
export function worldviewAction(ctx: ActionContext, decision: ToolDecision): RouterAction {
  const vars = ctx.parsed.variables.filter((v) => v.mapping && v.mapping.worldviewLayers.length);
  const varLayers = vars.flatMap((v) => v.mapping!.worldviewLayers.slice(0, 1));
  const layers = [...WORLDVIEW_OVERLAY, ...varLayers, ...WORLDVIEW_BASE.filter((l) => !varLayers.includes(l))];
  const { bbox, source: areaSource } = area(ctx);
  const [w, s, e, n] = bbox;
  const east = e < w ? e + 360 : e; // Worldview takes extents past 180° for boxes that cross the antimeridian
  const { p, source: dateSource } = period(ctx, 'yesterday');
  const date = representativeDay({ ...p, rule: '', granularity: 'span', span: { text: '', start: 0, end: 0 } });
  const u = new URL(ctx.endpoints.worldview);
  u.searchParams.set('v', [w, s, east, n].map(fmt).join(','));
  u.searchParams.set('l', layers.join(','));
  u.searchParams.set('t', `${date}-T00:00:00Z`);
  const varLabel = vars.map((v) => v.mapping!.label).join(', ') || 'true-colour imagery';
  return {
    tool: 'worldview', method: 'GET', rule: 'worldview.permalink', url: u.toString(),
    label: `Worldview: ${varLabel}${ctx.parsed.places.length ? ` over ${ctx.parsed.places.map((pl) => pl.place.name).join(', ')}` : ''}, ${date}`,
    provenance: {
      decisionRule: decision.rule, layers, layerSource: vars.length ? vars.map((v) => `variables.json:${v.mapping!.id}`) : 'default base layer (no mapped variable)',
      bbox, areaSource, date, dateSource,
    },
  };
}

/** Giovanni link: `service` (ArAvTs area-averaged time series, TmAvMp time-averaged map), period, bbox, variable. */
export function giovanniAction(ctx: ActionContext, decision: ToolDecision): RouterAction {
  const mapped = ctx.parsed.variables.find((v) => v.mapping?.giovanni);
  const anyVar: VariableMatch | undefined = mapped ?? ctx.parsed.variables[0];
  const ts = ctx.parsed.intents.some((i) => i.intent === 'timeseries' && !/^(average|averaged over|climatology)$/.test(i.cue));
  const service = ts ? 'ArAvTs' : 'TmAvMp';
  const { bbox, source: areaSource } = area(ctx);
  const { p, source: periodSource } = period(ctx, 'last-year');
  const params = new URLSearchParams();
  params.set('service', service);
  params.set('starttime', `${p.start}T00:00:00Z`);
  params.set('endtime', `${p.end}T23:59:59Z`);
  params.set('bbox', bbox.map(fmt).join(','));
  if (mapped) params.set('data', mapped.mapping!.giovanni!.variable);
  params.set('dataKeyword', mapped ? mapped.mapping!.giovanni!.dataKeyword : (anyVar?.gcmd ?? '').toLowerCase());
  const url = `${ctx.endpoints.giovanni}#${params.toString()}`;
  return {
    tool: 'giovanni', method: 'GET', rule: mapped ? 'giovanni.link+variable' : 'giovanni.link+keyword', url,
    label: `Giovanni ${service === 'ArAvTs' ? 'area-averaged time series' : 'time-averaged map'}: ${mapped?.mapping?.label ?? anyVar?.gcmd ?? ''}, ${p.start}..${p.end}`,
    provenance: {
      decisionRule: decision.rule, service, serviceSource: ts ? 'time-series cue' : 'averaging cue',
      variable: mapped ? mapped.mapping!.giovanni!.variable : null, variableSource: mapped ? `variables.json:${mapped.mapping!.id}` : `GCMD keyword ${anyVar?.gcmd} (no Giovanni variable mapped; keyword search)`,
      bbox, areaSource, period: p, periodSource,
    },
  };
}

/** The collection an action is about: the variable mapping's collection found in the corpus, else the top retrieved dataset. */
function actionCollection(ctx: ActionContext): { c: CandidateDataset; source: string } | null {
  for (const v of ctx.parsed.variables) {
    for (const sn of v.mapping?.harmonyShortNames ?? []) {
      const c = ctx.resolveShortName?.(sn);
      if (c) return { c, source: `variables.json:${v.mapping!.id} → ShortName ${sn} → ${c.id} (corpus)` };
    }
  }
  if (ctx.candidates.length) return { c: ctx.candidates[0], source: 'top retrieved dataset' };
  return null;
}

/**
 * Harmony OGC API Coverages request: `{harmony}/{collectionId}/ogc-api-coverages/1.0.0/collections/{variable}/coverage/rangeset`
 * with `subset=lat(s:n)`, `subset=lon(w:e)` (left out for boxes that cross the antimeridian) and
 * `subset=time("start":"end")`. Null when no collection is known (no mapping and no retrieval yet).
 */
export function harmonyAction(ctx: ActionContext, decision: ToolDecision): RouterAction | null {
  const col = actionCollection(ctx);
  if (!col) return null;
  const variable = 'all';
  const u = new URL(`${ctx.endpoints.harmony.replace(/\/$/, '')}/${encodeURIComponent(col.c.id)}/ogc-api-coverages/1.0.0/collections/${variable}/coverage/rangeset`);
  const hasArea = ctx.parsed.places.length > 0;
  const { bbox, source: areaSource } = area(ctx);
  const notes: string[] = [];
  if (hasArea) {
    u.searchParams.append('subset', `lat(${fmt(bbox[1])}:${fmt(bbox[3])})`);
    if (bbox[0] <= bbox[2]) u.searchParams.append('subset', `lon(${fmt(bbox[0])}:${fmt(bbox[2])})`);
    else notes.push('longitude subset left out: the area crosses the antimeridian');
  }
  if (ctx.parsed.period) u.searchParams.append('subset', `time("${ctx.parsed.period.start}T00:00:00Z":"${ctx.parsed.period.end}T23:59:59Z")`);
  return {
    tool: 'harmony', method: 'GET', rule: 'harmony.ogc-coverages-rangeset', url: u.toString(),
    label: `Harmony subset of ${col.c.shortName ?? col.c.id}${hasArea ? ` over ${ctx.parsed.places.map((p) => p.place.name).join(', ')}` : ''}${ctx.parsed.period ? `, ${ctx.parsed.period.start}..${ctx.parsed.period.end}` : ''}`,
    provenance: {
      decisionRule: decision.rule, collectionId: col.c.id, collectionSource: col.source, variable, variableSource: 'all variables (no per-variable mapping)',
      bbox: hasArea ? bbox : null, areaSource: hasArea ? areaSource : 'no spatial subset (no place in the query)',
      period: ctx.parsed.period ? { start: ctx.parsed.period.start, end: ctx.parsed.period.end } : null, notes,
    },
  };
}

/** Science Discovery Engine search link for the query text. */
export function sdeAction(ctx: ActionContext, decision: ToolDecision): RouterAction {
  const q = JSON.stringify({ name: 'query-smd-primary', text: ctx.parsed.text });
  const url = `${ctx.endpoints.sde}#/search?query=${encodeURIComponent(q)}`;
  return { tool: 'sde', method: 'GET', rule: 'sde.search', url, label: `Science Discovery Engine: "${ctx.parsed.text}"`, provenance: { decisionRule: decision.rule, text: ctx.parsed.text } };
}

/**
 * Earthdata Search link: focused on a collection (`p`: the mapping's collection in the corpus, else the top retrieved
 * dataset) when one is known, else a keyword search (`q`); `qt` period, `sb[0]` box.
 */
export function earthdataSearchAction(ctx: ActionContext, decision: ToolDecision): RouterAction {
  const found = actionCollection(ctx);
  const col = found?.c ?? null;
  const u = new URL(col ? 'search/granules' : 'search', ctx.endpoints.earthdataSearch);
  if (col) u.searchParams.set('p', col.id);
  else u.searchParams.set('q', ctx.parsed.text);
  if (ctx.parsed.period) u.searchParams.set('qt', `${ctx.parsed.period.start}T00:00:00.000Z,${ctx.parsed.period.end}T23:59:59.999Z`);
  if (ctx.parsed.places.length) u.searchParams.set('sb[0]', area(ctx).bbox.map(fmt).join(','));
  return {
    tool: 'earthdata-search', method: 'GET', rule: col ? 'earthdata-search.collection' : 'earthdata-search.keywords', url: u.toString(),
    label: col ? `Earthdata Search: ${col.shortName ?? col.id} granules` : `Earthdata Search: "${ctx.parsed.text}"`,
    provenance: {
      decisionRule: decision.rule, collectionId: col?.id ?? null, collectionSource: found?.source ?? 'none (keyword search)',
      period: ctx.parsed.period ? { start: ctx.parsed.period.start, end: ctx.parsed.period.end } : null,
      bbox: ctx.parsed.places.length ? area(ctx).bbox : null,
    },
  };
}

/** The actions of every applicable decision (Harmony is skipped when no collection is known). */
export function buildActions(ctx: ActionContext, decisions: ToolDecision[]): RouterAction[] {
  const out: RouterAction[] = [];
  for (const d of [...decisions].filter((x) => x.applies).sort((a, b) => b.confidence - a.confidence)) {
    if (d.tool === 'worldview') out.push(worldviewAction(ctx, d));
    else if (d.tool === 'giovanni') out.push(giovanniAction(ctx, d));
    else if (d.tool === 'harmony') {
      const a = harmonyAction(ctx, d);
      if (a) out.push(a);
    } else if (d.tool === 'sde') out.push(sdeAction(ctx, d));
    else out.push(earthdataSearchAction(ctx, d));
  }
  return out;
}
