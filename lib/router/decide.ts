import { intentWeights } from './parse';
import type { CandidateDataset, Evidence, ParsedQuery, ToolDecision, ToolName, VariableMatch } from './types';

/** Looks a CMR ShortName up in the loaded corpus (Harmony collections of the variable mapping). */
export type ShortNameResolver = (shortName: string) => CandidateDataset | null;

function ev(parsed: ParsedQuery) {
  const w = intentWeights(parsed.intents);
  const cue = (intent: string) => parsed.intents.filter((i) => i.intent === intent).map((i) => `"${i.span.text}"`).join(', ');
  const intentEv = (intent: string): Evidence[] =>
    parsed.intents.filter((i) => i.intent === intent).map((i) => ({ kind: 'intent', detail: `intent ${intent} (cue "${i.cue}", weight ${i.weight})`, span: i.span }));
  const placeEv: Evidence[] = parsed.places.map((p) => ({ kind: 'place', detail: `place ${p.place.name} [${p.place.bbox.join(', ')}] (${p.place.source})`, span: p.span }));
  const periodEv: Evidence[] = parsed.period
    ? [{ kind: 'period', detail: `period ${parsed.period.start}..${parsed.period.end} (rule ${parsed.period.rule})`, span: parsed.period.span }]
    : [];
  const varEv = (vs: VariableMatch[]): Evidence[] =>
    vs.map((v) => ({ kind: 'variable', detail: `variable ${v.gcmd}${v.mapping ? ` (mapping ${v.mapping.id})` : ` (GCMD ${v.gcmdPath})`}`, span: v.span }));
  return { w, cue, intentEv, placeEv, periodEv, varEv };
}

/** Subset cues that mean "give me the files" (Earthdata Search), as opposed to server-side processing only. */
const DOWNLOAD_CUES = new Set(['download', 'granules', 'files', 'bulk', 'get data', 'get the data']);

const clamp = (x: number) => Math.max(0, Math.min(1, Math.round(x * 100) / 100));

/**
 * One decision per tool, by rules over the parsed query (every rule is spelled out in its `rule` field):
 *
 * - worldview: a visualise cue with a variable that has a Worldview layer, a place or a period; or an event
 *   (hurricane, eruption, fire…) with a place or date and no analysis or explanation intent. Fully answers when a layer is mapped
 *   and the query does not ask for datasets or files.
 * - giovanni: a time-series / averaging / trend cue with a physical variable (Giovanni variable mapped: higher
 *   confidence, and a full answer when no datasets or files are asked for).
 * - harmony: a subset / download / reformat cue (stronger with a place or period). Fully answers when the variable
 *   maps to a Harmony collection present in the corpus and the query does not ask which dataset to use.
 * - sde: a background / explanation / literature cue, or an event with no data intent. Fully answers when nothing
 *   data-related (datasets, files, variables with analysis) is asked.
 * - earthdata-search: the query asks for datasets/data products, or to download files (download/granules/files cues). Never a full answer: the
 *   collection comes from retrieval.
 */
export interface DecideOptions {
  resolveShortName?: ShortNameResolver;
  /** Retrieved datasets, best first. Default none. */
  candidates?: CandidateDataset[];
  /**
   * Routing runs before retrieval and a retrieval stage follows (the search path): a retrieved collection will be
   * there for Harmony to subset, so it counts as if `candidates` were given. Default false.
   */
  retrievalFollows?: boolean;
  /** A decision applies when its confidence reaches this. Default 0.5. */
  minConfidence?: number;
}

export function decideTools(parsed: ParsedQuery, opts: DecideOptions = {}): ToolDecision[] {
  const minConf = opts.minConfidence ?? 0.5;
  const { w, intentEv, placeEv, periodEv, varEv } = ev(parsed);
  const where = parsed.places.length > 0;
  const when = parsed.period !== null;
  const layerVars = parsed.variables.filter((v) => v.mapping && v.mapping.worldviewLayers.length > 0);
  const gioVars = parsed.variables.filter((v) => v.mapping?.giovanni);
  const harmonyVars = parsed.variables.filter((v) => v.mapping && v.mapping.harmonyShortNames.some((s) => opts.resolveShortName?.(s)));
  const wantsData = w.dataset >= 0.7;
  const analysis = Math.max(w.timeseries, w.subset);
  const out: ToolDecision[] = [];
  const push = (tool: ToolName, conf: number, fully: boolean, rule: string, evidence: Evidence[]) => {
    const c = clamp(conf);
    out.push({ tool, applies: c >= minConf, confidence: c, fullyAnswers: c >= minConf && fully, rule, evidence });
  };

  // Worldview
  if (w.visualise >= 0.6 && (layerVars.length || where || when)) {
    const conf = 0.45 + 0.3 * w.visualise + (layerVars.length ? 0.15 : 0) + (where || when ? 0.1 : 0) - (w.timeseries >= 0.8 ? 0.2 : 0);
    push('worldview', conf, layerVars.length > 0 && !wantsData && w.subset < 0.8, layerVars.length ? 'worldview.visualise+layer' : 'worldview.visualise+place-or-date',
      [...intentEv('visualise'), ...varEv(layerVars), ...placeEv, ...periodEv]);
  } else if (w.event >= 0.7 && (where || when) && analysis < 0.6 && !wantsData && w.background < 0.7) {
    push('worldview', 0.55 + 0.1 * (where && when ? 1 : 0), false, 'worldview.event-imagery', [...intentEv('event'), ...placeEv, ...periodEv]);
  } else push('worldview', 0, false, 'worldview.none', []);

  // Giovanni
  if (w.timeseries >= 0.6 && parsed.variables.length) {
    const mapped = gioVars.length > 0;
    const conf = (mapped ? 0.6 : 0.45) + 0.3 * w.timeseries + (where ? 0.05 : 0) + (when ? 0.05 : 0);
    push('giovanni', conf, mapped && !wantsData && w.subset < 0.8, mapped ? 'giovanni.timeseries+mapped-variable' : 'giovanni.timeseries+gcmd-variable',
      [...intentEv('timeseries'), ...varEv(mapped ? gioVars : parsed.variables), ...placeEv, ...periodEv]);
  } else push('giovanni', 0, false, 'giovanni.none', []);

  // Harmony
  if (w.subset >= 0.5 && (w.subset >= 0.8 || where || when)) {
    const collection = harmonyVars.length > 0;
    const conf = 0.35 + 0.4 * w.subset + (where || when ? 0.15 : 0) + (collection || opts.candidates?.length || opts.retrievalFollows ? 0.1 : 0);
    push('harmony', conf, collection && !wantsData, collection ? 'harmony.subset+mapped-collection' : 'harmony.subset',
      [...intentEv('subset'), ...varEv(harmonyVars), ...placeEv, ...periodEv]);
  } else push('harmony', 0, false, 'harmony.none', []);

  // SDE
  const dataIntent = Math.max(w.visualise, w.timeseries, w.subset, wantsData ? 1 : 0);
  if (w.background >= 0.7) {
    push('sde', 0.3 + 0.6 * w.background - (dataIntent >= 0.8 ? 0.2 : 0), dataIntent < 0.6, 'sde.background', intentEv('background'));
  } else if (w.event >= 0.8 && dataIntent < 0.6) {
    push('sde', 0.6, false, 'sde.event', intentEv('event'));
  } else push('sde', 0, false, 'sde.none', []);

  // Earthdata Search
  const downloadCues = parsed.intents.filter((i) => i.intent === 'subset' && DOWNLOAD_CUES.has(i.cue));
  if (wantsData || downloadCues.length) {
    const evd: Evidence[] = [...intentEv('dataset'), ...downloadCues.map((i) => ({ kind: 'intent' as const, detail: `download cue "${i.cue}"`, span: i.span }))];
    if (opts.candidates?.length) evd.push({ kind: 'dataset', detail: `top retrieved collection ${opts.candidates[0].id}` });
    push('earthdata-search', 0.5 + 0.4 * Math.max(w.dataset, downloadCues.length ? w.subset : 0), false, wantsData ? 'earthdata-search.dataset-request' : 'earthdata-search.download', evd);
  } else push('earthdata-search', 0, false, 'earthdata-search.none', []);

  return out;
}
