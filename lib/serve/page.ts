import { datasetLandingPage } from '../data/text';
import type { DatasetRecord } from '../data/types';
import type { RouterAction } from '../router/types';
import { cmrConceptUrl, earthdataSearchUrl } from '../search/search';
import { decadeTemporal, FACET_NAMES, type FacetName, type FacetValue } from '../search/facets';
import { formatTemporalFilter, LIST_FILTERS, nameKey, type SearchFilters } from '../search/filters';
import type { SearchResponse } from '../search/types';
import { escapeHtml as h, isHttpUrl } from './validate';

/** Stylesheet served at /static/app.css. */
export const PAGE_CSS = `
body{font-family:system-ui,"DejaVu Sans",Arial,sans-serif;margin:0;color:#1b1b1b;background:#f7f8fa}
header{background:#0b3d91;color:#fff;padding:14px 24px}header a{color:#fff;text-decoration:none}
h1{font-size:20px;margin:0}main{max-width:1000px;margin:0 auto;padding:16px 24px}
form.search{display:flex;gap:8px;margin:12px 0}form.search input[type=search]{flex:1;font-size:16px;padding:8px}
form.search button{font-size:16px;padding:8px 16px;background:#0b3d91;color:#fff;border:0;border-radius:4px;cursor:pointer}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:10px;border-radius:4px}
.actions{background:#fff;border:1px solid #d0d7e2;border-radius:6px;padding:10px 14px;margin:12px 0}
.action{margin:6px 0}.tool{display:inline-block;min-width:120px;font-weight:600}
.result{background:#fff;border:1px solid #d0d7e2;border-radius:6px;padding:10px 14px;margin:10px 0}
.result h3{margin:0 0 4px 0;font-size:16px}.meta{color:#555;font-size:13px}.why{font-size:13px;color:#234}
.bar{display:inline-block;height:8px;vertical-align:middle}.bar.lex{background:#d98c1f}.bar.sem{background:#3a7bd5}
.links a{margin-right:12px;font-size:13px}.note{color:#555;font-size:13px}details{font-size:13px}
dl.record dt{font-weight:600;margin-top:8px}dl.record dd{margin-left:0}
.page{display:grid;grid-template-columns:220px 1fr;gap:20px;align-items:start}.page>section{min-width:0}
aside.facets{background:#fff;border:1px solid #d0d7e2;border-radius:6px;padding:8px 12px;font-size:13px}
aside.facets h2{font-size:15px;margin:4px 0}aside.facets h3{font-size:13px;margin:10px 0 4px 0;color:#0b3d91}
aside.facets ul{list-style:none;margin:0;padding:0}aside.facets li{display:flex;justify-content:space-between;gap:6px;margin:2px 0}
aside.facets li a{overflow-wrap:anywhere}aside.facets li.active a{font-weight:700}.count{color:#555}.carriers{font-size:13px;color:#444}abbr.inferred{font-size:11px;color:#777;text-decoration:none;border-bottom:1px dotted #999}
.chips{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0;font-size:13px}
.chip{display:inline-flex;gap:6px;align-items:center;background:#e7eefb;border:1px solid #b5c7ea;border-radius:14px;padding:2px 10px}
.chips-label{color:#555;margin-left:4px}.chip.filter{background:#eef7ea;border-color:#b7d7a8}.chip.ignored{background:#f1f1f1;border-color:#ccc;color:#666;text-decoration:line-through}
.chip a.remove,.chip a.restore{text-decoration:none;font-weight:700;color:#0b3d91}.chip.ignored a.restore{text-decoration:underline;font-weight:400}
details.filters{font-size:13px;margin:-4px 0 12px 0}details.filters .grid{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:6px 12px;margin-top:6px}
details.filters label{display:flex;flex-direction:column;gap:2px}details.filters input{font-size:13px;padding:4px}
.page.solo{grid-template-columns:1fr}
@media (max-width:760px){.page{grid-template-columns:1fr}details.filters .grid{grid-template-columns:1fr}}
`;

/** Script served at /static/app.js: "/" focuses the search box; a click on a result's bar toggles its details. */
export const PAGE_JS = `
document.addEventListener('keydown', function (e) {
  var box = document.getElementById('q');
  if (e.key === '/' && box && document.activeElement !== box) { e.preventDefault(); box.focus(); box.select(); }
});
document.addEventListener('click', function (e) {
  var t = e.target;
  if (t && t.classList && t.classList.contains('why')) {
    var d = t.parentNode.querySelector('details');
    if (d) d.open = !d.open;
  }
});
`;

function layout(title: string, body: string, query = '', formExtra = ''): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title><link rel="stylesheet" href="/static/app.css"><script src="/static/app.js" defer></script></head>
<body><header><h1><a href="/">EO Workbench · dataset search</a></h1></header><main>
<form class="search" id="search-form" method="get" action="/" role="search">
<input type="search" id="q" name="q" value="${h(query)}" maxlength="500" placeholder="e.g. time series of aerosol optical depth over India since 2015" aria-label="search query" autofocus>
<button type="submit" id="go">Search</button></form>
${formExtra}
${body}
</main></body></html>
`;
}

function link(url: string, text: string, cls = ''): string {
  if (!isHttpUrl(url)) return h(text);
  return `<a href="${h(url)}"${cls ? ` class="${cls}"` : ''} rel="noopener noreferrer" target="_blank">${h(text)}</a>`;
}

function actionHtml(a: RouterAction): string {
  const prov = Object.entries(a.provenance)
    .map(([k, v]) => `<li><b>${h(k)}</b>: ${h(typeof v === 'string' ? v : JSON.stringify(v))}</li>`)
    .join('');
  return `<div class="action" data-tool="${h(a.tool)}"><span class="tool">${h(a.tool)}</span>${link(a.url, a.label, 'action-link')}
<details><summary>rule ${h(a.rule)} · provenance</summary><ul>${prov}</ul></details></div>`;
}

/** What a results page asks for: the query, k, the filters and the ignored constraints (the URL's parameters). */
interface PageState {
  q: string;
  k: number;
  filters: SearchFilters;
  ignore: string[];
}

function pageState(res: SearchResponse): PageState {
  const ig = res.retrieval.ignored;
  const ignore = [
    ...(ig?.period ? ['period'] : []),
    ...(ig?.places ?? []).map((p) => `place:${p}`),
    ...(ig?.identifiers ?? []).map((t) => `identifier:${t}`),
  ];
  return { q: res.query, k: res.k, filters: res.retrieval.filters?.applied ?? {}, ignore };
}

/** The page's URL of a state (list filters as repeated parameters, as the API takes them). */
function stateUrl(st: PageState): string {
  const u = new URLSearchParams();
  u.set('q', st.q);
  if (st.k !== 10) u.set('page_size', String(st.k)); // CMR's name, as every parameter of the page's links
  for (const f of LIST_FILTERS) for (const v of st.filters[f] ?? []) u.append(f, v);
  if (st.filters.temporal) u.set('temporal', formatTemporalFilter(st.filters.temporal));
  if (st.filters.bounding_box) u.set('bounding_box', st.filters.bounding_box.join(','));
  for (const i of st.ignore) u.append('ignore', i);
  return `/?${u.toString()}`;
}

const FACET_LABELS: Record<FacetName, string> = {
  provider: 'Provider (DAAC)', platform: 'Platform', instrument: 'Instrument', processing_level_id: 'Processing level', period: 'Period',
};
/** Facet values shown per facet (the JSON has all). */
const FACET_SHOWN = 12;

/** True when `value` of facet `f` is among the active filters. */
function facetActive(st: PageState, f: FacetName, value: string): boolean {
  if (f === 'period') {
    const t = decadeTemporal(value);
    return !!t && !!st.filters.temporal && formatTemporalFilter(st.filters.temporal) === formatTemporalFilter(t);
  }
  const vs = st.filters[f] ?? [];
  return f === 'platform' || f === 'instrument' ? vs.some((v) => nameKey(v) === nameKey(value)) : vs.includes(value);
}

/** The state with facet value `value` added (period: the decade replaces the temporal filter) or removed. */
function withFacet(st: PageState, f: FacetName, value: string, on: boolean): PageState {
  const filters: SearchFilters = { ...st.filters };
  if (f === 'period') {
    if (on) filters.temporal = decadeTemporal(value) ?? undefined;
    else delete filters.temporal;
  } else {
    const keep = (filters[f] ?? []).filter((v) => (f === 'platform' || f === 'instrument' ? nameKey(v) !== nameKey(value) : v !== value));
    filters[f] = on ? [...keep, value] : keep;
  }
  return { ...st, filters };
}

/** What an "inferred" mark stands for. */
const INFERRED_FROM = 'inferred from the dataset title with the GCMD vocabularies (no CMR metadata)';

/** What a facet value's "inferred" mark says: how many of its datasets carry it by the GCMD inference from their titles. */
function inferredTitle(v: FacetValue): string {
  return `${v.inferred === v.count ? 'all' : `${v.inferred} of`} ${v.count} ${INFERRED_FROM}`;
}

/** A result's platforms and instruments, those inferred from its title marked so. */
function carriersHtml(d: SearchResponse['results'][number]): string {
  const part = (f: 'platforms' | 'instruments', label: string) =>
    d[f].length ? `${label}: ${h(d[f].join(', '))}${d.inferred.includes(f) ? ' <abbr class="inferred" title="${INFERRED_FROM}">inferred</abbr>' : ''}` : '';
  const parts = [part('platforms', 'Platforms'), part('instruments', 'Instruments')].filter(Boolean);
  return parts.length ? `\n<div class="carriers">${parts.join(' · ')}</div>` : '';
}

function facetsHtml(res: SearchResponse, st: PageState): string {
  const fc = res.facets;
  if (!fc) return '';
  const groups = FACET_NAMES.map((f) => {
    const values = fc[f];
    if (values.length === 0) return '';
    const items = values.slice(0, FACET_SHOWN).map((v) => {
      const on = facetActive(st, f, v.value);
      const href = stateUrl(withFacet(st, f, v.value, !on));
      const label = on ? `remove the ${FACET_LABELS[f].toLowerCase()} filter ${v.value}` : `only ${FACET_LABELS[f].toLowerCase()} ${v.value} (${v.count} of these results)`;
      const shown = f === 'processing_level_id' ? `Level ${v.value}` : v.value;
      return `<li${on ? ' class="active"' : ''}><a class="facet-link" data-facet="${f}" data-value="${h(v.value)}" href="${h(href)}" aria-label="${h(label)}">${on ? '✓ ' : ''}${h(shown)}</a><span class="count">${v.inferred ? `<abbr class="inferred" title="${h(inferredTitle(v))}">inferred</abbr> ` : ''}${v.count}</span></li>`;
    }).join('');
    const more = values.length > FACET_SHOWN ? `<li class="note">+ ${values.length - FACET_SHOWN} more</li>` : '';
    return `<section class="facet" data-facet="${f}"><h3>${h(FACET_LABELS[f])}</h3><ul>${items}${more}</ul></section>`;
  }).join('');
  return `<aside class="facets" id="facets" aria-label="facets"><h2>Refine</h2><p class="note">Counts over the top ${fc.resultSet} results.</p>${groups}</aside>`;
}

/** A chip: its text and a link that removes it (or, for an ignored constraint, restores it). */
function chip(kind: string, text: string, href: string, action: 'remove' | 'restore', cls: string, label: string): string {
  const a = action === 'remove'
    ? `<a class="remove" href="${h(href)}" aria-label="${h(label)}" title="${h(label)}">×</a>`
    : `<a class="restore" href="${h(href)}" aria-label="${h(label)}">restore</a>`;
  return `<span class="chip ${cls}" data-kind="${h(kind)}">${h(text)} ${a}</span>`;
}

/** Chips of the question's parsed period, places and named identifiers (removable), and of the active filters. */
function chipsHtml(res: SearchResponse, st: PageState): string {
  const parsed = res.router?.parsed;
  const ig = res.retrieval.ignored;
  const out: string[] = [];
  const ignoring = (v: string) => ({ ...st, ignore: [...st.ignore, v] });
  const restoring = (v: string) => ({ ...st, ignore: st.ignore.filter((x) => x !== v) });
  if (parsed?.period) {
    const text = `period ${parsed.period.start} – ${parsed.period.end}`;
    out.push(ig?.period
      ? chip('period', text, stateUrl(restoring('period')), 'restore', 'parsed ignored', `use the period ${text} again`)
      : chip('period', text, stateUrl(ignoring('period')), 'remove', 'parsed', `ignore the ${text}`));
  }
  const placeNames = [...new Set((parsed?.places ?? []).filter((p) => !(p.bbox[0] <= -180 && p.bbox[2] >= 180 && p.bbox[1] <= -90 && p.bbox[3] >= 90)).map((p) => p.name))];
  for (const name of placeNames) {
    const v = `place:${name}`;
    const off = (ig?.places ?? []).some((p) => p.toLowerCase() === name.toLowerCase());
    out.push(off
      ? chip('place', `place ${name}`, stateUrl(restoring(st.ignore.find((x) => x.toLowerCase() === v.toLowerCase()) ?? v)), 'restore', 'parsed ignored', `use the place ${name} again`)
      : chip('place', `place ${name}`, stateUrl(ignoring(v)), 'remove', 'parsed', `ignore the place ${name}`));
  }
  for (const id of res.retrieval.identifiers?.named ?? []) {
    const text = `${id.kind} ${id.text}${id.moved ? ` (${id.moved} moved down)` : ''}`;
    out.push(chip('identifier', text, stateUrl(ignoring(`identifier:${id.text}`)), 'remove', 'parsed', `ignore ${id.kind} ${id.text}`));
  }
  for (const t of ig?.identifiers ?? [])
    if (!(res.retrieval.identifiers?.named ?? []).some((n) => n.text.toLowerCase() === t.toLowerCase()))
      out.push(chip('identifier', `identifier ${t}`, stateUrl(restoring(`identifier:${t}`)), 'restore', 'parsed ignored', `use the identifier ${t} again`));
  const fromQuestion = out.splice(0);
  const f = st.filters;
  for (const k of LIST_FILTERS)
    for (const v of f[k] ?? []) out.push(chip(k, `${k} ${v}`, stateUrl(withFacet(st, k, v, false)), 'remove', 'filter', `remove the filter ${k} ${v}`));
  if (f.temporal) {
    const text = `temporal ${formatTemporalFilter(f.temporal)}`;
    out.push(chip('temporal', text, stateUrl({ ...st, filters: { ...f, temporal: undefined } }), 'remove', 'filter', `remove the filter ${text}`));
  }
  if (f.bounding_box) {
    const text = `bounding_box ${f.bounding_box.join(',')}`;
    out.push(chip('bounding_box', text, stateUrl({ ...st, filters: { ...f, bounding_box: undefined } }), 'remove', 'filter', `remove the filter ${text}`));
  }
  const eff = res.retrieval.filters;
  const note = eff ? `<span class="note" id="filter-effect">filters removed ${eff.removed} matching datasets</span>` : '';
  if (fromQuestion.length + out.length === 0) return '';
  const group = (label: string, chips: string[]) => (chips.length ? `<span class="chips-label">${label}</span>${chips.join('')}` : '');
  return `<div class="chips" id="chips" aria-label="constraints and filters">${group('From your question:', fromQuestion)}${group('Filters:', out)}${note}</div>`;
}

/** Filter inputs of the search form (CMR parameter names), filled with the active filters. */
function filterInputs(st: PageState | null): string {
  const f = st?.filters ?? {};
  const field = (name: string, label: string, value: string, placeholder: string) =>
    `<label>${h(label)}<input form="search-form" name="${name}" id="f-${name}" value="${h(value)}" placeholder="${h(placeholder)}" maxlength="200"></label>`;
  const list = (k: (typeof LIST_FILTERS)[number]) => (f[k] ?? []).join(',');
  const open = st && (LIST_FILTERS.some((k) => (f[k]?.length ?? 0) > 0) || f.temporal || f.bounding_box) ? ' open' : '';
  const k = st && st.k !== 10 ? `<input type="hidden" form="search-form" name="page_size" value="${st.k}">` : '';
  return `<details class="filters" id="filter-form"${open}><summary>Filters (provider, platform, instrument, level, time, area)</summary><div class="grid">
${field('provider', 'Provider (DAAC)', list('provider'), 'e.g. GES_DISC,POCLOUD')}${field('platform', 'Platform', list('platform'), 'e.g. Aqua')}${field('instrument', 'Instrument', list('instrument'), 'e.g. MODIS')}
${field('processing_level_id', 'Processing level', list('processing_level_id'), 'e.g. 3 or L2')}${field('temporal', 'Temporal (start,end)', f.temporal ? formatTemporalFilter(f.temporal) : '', 'e.g. 2015-01-01,2020-12-31')}${field('bounding_box', 'Bounding box (W,S,E,N)', f.bounding_box ? f.bounding_box.join(',') : '', 'e.g. -10,35,30,60')}
</div>${k}</details>`;
}

/** "Showing results for *repaired*. Search instead for *original*" (a link with `repair=0`), and a language note. */
function repairHtml(res: SearchResponse): string {
  const rp = res.repair;
  if (!rp) return '';
  const asTyped = `/?q=${encodeURIComponent(res.query)}&page_size=${res.k}&repair=0`;
  const line = rp.repaired !== rp.original
    ? `<p class="repair" id="repair">Showing results for <i>${h(rp.repaired)}</i>. Search instead for <a id="repair-original" href="${h(asTyped)}"><i>${h(res.query)}</i></a></p>`
    : '';
  return line + (rp.note ? `<p class="note repair-note" id="repair-note">${h(rp.note)}</p>` : '');
}

/** The home page, with results when a search ran. */
export function renderSearchPage(res: SearchResponse | null): string {
  if (!res) {
    return layout('EO Workbench · dataset search', `<p class="note">Search 10,000+ NASA Earth-observation collections. The router first sends your request to NASA's own tools
(Worldview, Giovanni, Harmony, the Science Discovery Engine, Earthdata Search) where they answer it; datasets are ranked by BM25 and a
semantic scorer, fused.</p>`, '', filterInputs(null));
  }
  const r = res.router ?? { router: 'none', fallThrough: true, decisions: [], actions: [], notes: [], parsed: { period: null, places: [], variables: [], intents: [] } };
  const applied = r.decisions.filter((d) => d.applies);
  const actions = r.actions.length
    ? `<section class="actions" id="router-actions"><h2>NASA tools for this request</h2>${r.actions.map(actionHtml).join('\n')}
<p class="note">${r.fallThrough ? 'The tools cover part of the request; matching datasets follow.' : 'These tools answer the request; datasets below for reference.'}
Decided by ${h(r.router)}: ${applied.map((d) => `${h(d.tool)} ${d.confidence.toFixed(2)} (${h(d.rule)}; ${h(d.evidence.map((e) => e.detail).join('; '))})`).join(' · ')}</p></section>`
    : `<section class="actions" id="router-actions"><p class="note">No NASA tool answers this directly; it goes to dataset retrieval.</p></section>`;
  const notes = r.notes.map((n) => `<p class="note router-note">${h(n)}</p>`).join('') + repairHtml(res);
  const parsedBits = [
    r.parsed.period ? `period ${h(r.parsed.period.start)}..${h(r.parsed.period.end)}` : '',
    ...r.parsed.places.map((p) => `place ${h(p.name)}`),
    ...r.parsed.variables.map((v) => `variable ${h(v.gcmd)}`),
    ...r.parsed.intents.map((i) => `intent ${h(i.intent)}`),
  ].filter(Boolean);
  const results = res.results.length
    ? res.results.map((d) => {
        const lex = d.components.lexical;
        const sem = d.components.semantic;
        const temporal = `${d.temporal.start?.slice(0, 10) ?? '?'} – ${d.temporal.end?.slice(0, 10) ?? 'ongoing'}`;
        // bar widths: each part's share of the score (convex parts add up to the score; RRF parts too)
        const bar = (c: number) => Math.round((d.score > 0 ? c / d.score : 0) * 120);
        const bars = sem && lex
          ? `<span class="bar lex" style="width:${bar(lex.contribution)}px" title="BM25"></span><span class="bar sem" style="width:${bar(sem.contribution)}px" title="semantic"></span>`
          : '';
        const part = (c: typeof lex, name: string) => (c ? `${h(name)} raw ${c.raw.toFixed(3)}, normalised ${c.normalized.toFixed(3)}` : '');
        return `<article class="result" data-id="${h(d.id)}" data-stage="${d.stage}">
<h3>${d.rank}. <a class="detail-link" href="${h(d.links.detail)}">${h(d.shortName ?? d.id)}</a> — ${h(d.longName)}</h3>
<div class="meta">${h(d.daac)} · ${h(temporal)} · score ${d.score.toFixed(3)} · ${h(d.stage)}</div>${carriersHtml(d)}
<div class="why">${bars} ${h(d.why)}</div>${d.constraint ? `<div class="moved constraint">moved down: ${h(d.constraint)}</div>` : ''}${d.identifier ? `<div class="moved identifier">moved down: ${h(d.identifier)}</div>` : ''}${d.type ? `<div class="type">type: ${h(d.type)}</div>` : ''}
<details><summary>scores</summary>${[part(lex, 'BM25'), part(sem, sem?.scorer ?? '')].filter(Boolean).join('; ')}</details>
<div class="links">${link(d.links.landingPage, 'landing page')}${link(d.links.earthdataSearch, 'Earthdata Search')}${link(d.links.cmr, 'CMR record')}</div>
</article>`;
      }).join('\n')
    : '<p class="note" id="no-results">No dataset matches.</p>';
  const st = pageState(res);
  const body = `${actions}${notes}
<p class="note">Understood: ${parsedBits.join(' · ') || 'no period, place, variable or intent'}.</p>${(res.retrieval.identifiers?.notes ?? []).map((n) => `<p class="note identifier-note">${h(n)}</p>`).join('')}
${chipsHtml(res, st)}
<div class="page${res.facets ? '' : ' solo'}">${facetsHtml(res, st)}
<section id="results"><h2>Datasets</h2><p class="note">Ranked for “${h(res.retrievalQuery)}” by ${res.retrieval.semantic ? 'its words and its meaning together' : 'its words'}; ${res.timings.totalMs.toFixed(1)} ms</p>
<details class="note" id="ranking-details"><summary>how these were ranked</summary>${h(res.retrieval.label)} (α from ${h(res.retrieval.alphaSource)})</details>
${results}</section></div>`;
  return layout(`${res.query} · EO Workbench`, body, res.query, filterInputs(st));
}

/** An error page (the message is escaped; it never contains the query). */
export function renderErrorPage(status: number, message: string): string {
  return layout(`Error ${status} · EO Workbench`, `<div class="error" id="error" role="alert"><b>${status}</b>: ${h(message)}</div>`);
}

/** One dataset's record. */
export function renderDatasetPage(d: DatasetRecord): string {
  const row = (k: string, v: string | null) => (v ? `<dt>${h(k)}</dt><dd>${h(v)}</dd>` : '');
  const body = `<article id="dataset" data-id="${h(d.id)}"><h2>${h(d.shortName ?? d.id)}</h2><p>${h(d.longName)}</p>
<dl class="record">${row('Concept id', d.id)}${row('DAAC / provider', d.daac)}${row('DOI', d.doi)}
${row('Temporal coverage', `${d.temporalStart?.slice(0, 10) ?? '?'} – ${d.temporalEnd?.slice(0, 10) ?? 'ongoing'}`)}
${row('Processing level', d.processingLevel)}${row('Platforms', d.platforms.join(', ') || null)}${row('Instruments', d.instruments.join(', ') || null)}
${row('Keywords', d.keywords.join('; ') || null)}${row('Abstract', d.abstract || null)}</dl>
<div class="links">${link(datasetLandingPage(d), 'landing page')}${link(earthdataSearchUrl(d), 'Earthdata Search')}${link(cmrConceptUrl(d), 'CMR record')}</div>
<p><a href="/" id="back">← new search</a></p></article>`;
  return layout(`${d.shortName ?? d.id} · EO Workbench`, body);
}
