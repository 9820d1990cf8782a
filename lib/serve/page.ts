import { datasetLandingPage } from '../data/text';
import type { DatasetRecord } from '../data/types';
import type { RouterAction } from '../router/types';
import { cmrConceptUrl, earthdataSearchUrl } from '../search/search';
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

function layout(title: string, body: string, query = ''): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title><link rel="stylesheet" href="/static/app.css"><script src="/static/app.js" defer></script></head>
<body><header><h1><a href="/">EO Workbench · dataset search</a></h1></header><main>
<form class="search" method="get" action="/" role="search">
<input type="search" id="q" name="q" value="${h(query)}" maxlength="500" placeholder="e.g. time series of aerosol optical depth over India since 2015" aria-label="search query" autofocus>
<button type="submit" id="go">Search</button></form>
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

/** "Showing results for *repaired*. Search instead for *original*" (a link with `repair=0`), and a language note. */
function repairHtml(res: SearchResponse): string {
  const rp = res.repair;
  if (!rp) return '';
  const asTyped = `/?q=${encodeURIComponent(res.query)}&k=${res.k}&repair=0`;
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
semantic scorer, fused.</p>`);
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
<div class="meta">${h(d.daac)} · ${h(temporal)} · score ${d.score.toFixed(3)} · ${h(d.stage)}</div>
<div class="why">${bars} ${h(d.why)}</div>
<details><summary>scores</summary>${[part(lex, 'BM25'), part(sem, sem?.scorer ?? '')].filter(Boolean).join('; ')}</details>
<div class="links">${link(d.links.landingPage, 'landing page')}${link(d.links.earthdataSearch, 'Earthdata Search')}${link(d.links.cmr, 'CMR record')}</div>
</article>`;
      }).join('\n')
    : '<p class="note" id="no-results">No dataset matches.</p>';
  const body = `${actions}${notes}
<p class="note">Understood: ${parsedBits.join(' · ') || 'no period, place, variable or intent'}.</p>
<section id="results"><h2>Datasets</h2><p class="note">Ranked for “${h(res.retrievalQuery)}” by ${h(res.retrieval.label)} (α from ${h(res.retrieval.alphaSource)}); ${res.timings.totalMs.toFixed(1)} ms</p>
${results}</section>`;
  return layout(`${res.query} · EO Workbench`, body, res.query);
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
