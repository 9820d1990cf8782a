// The run explorer page's style and script (lib/report/explorer.ts embeds them with the data). Plain browser JS,
// no library, no network: it reads the JSON in #explorer-data and draws the Δ plot as inline SVG.

export const EXPLORER_STYLE = `
body{font:14px/1.45 DejaVu Sans,Liberation Sans,Arial,sans-serif;margin:24px;color:#222;max-width:1300px}
form label{margin-right:14px}select{font:inherit}
#plot svg{border:1px solid #ddd;background:#fff}#plot rect.q{cursor:pointer}#plot rect.q:hover{stroke:#000}
#plot rect.sel{stroke:#000;stroke-width:2}
.pair{display:flex;gap:18px;align-items:flex-start}.pair>div{flex:1;min-width:0}
table{border-collapse:collapse;width:100%}th,td{padding:2px 6px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top;font-size:13px}
th{border-bottom:2px solid #888}tr.hit{background:#e6f4e6}td.num{text-align:right;white-space:nowrap}
.up{color:#176117}.down{color:#a31515}.parts{font-size:12px;color:#555}.hint{color:#666}
`;

export const EXPLORER_SCRIPT = `
(function () {
  var D = JSON.parse(document.getElementById('explorer-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var esc = function (s) { return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; }); };
  // a notebook's runs of several splits share system ids (bm25 on train and on test): a system is its id and split
  var manySplits = D.systems.some(function (t) { return t.split !== D.systems[0].split; });
  var keyOf = function (s) { return manySplits ? s.id + '@' + s.split : s.id; };
  var byId = {}; D.systems.forEach(function (s) { byId[keyOf(s)] = s; });
  var qById = {}; D.queries.forEach(function (q) { qById[q.id] = q; });
  var selected = null;
  function options(sel, values, all) {
    sel.innerHTML = (all ? '<option value="">all</option>' : '') + values.map(function (v) { return '<option value="' + esc(v[0]) + '">' + esc(v[1]) + '</option>'; }).join('');
  }
  function uniq(xs) { return xs.filter(function (x, i) { return x !== undefined && x !== '' && xs.indexOf(x) === i; }).sort(); }
  var sysOpts = D.systems.map(function (s) { return [keyOf(s), s.label + (manySplits ? ' (' + s.split + ')' : '')]; });
  options($('sys-a'), sysOpts); options($('sys-b'), sysOpts);
  // B starts as another system of A's split (never A itself, never a run of another split)
  var otherOfSplit = function (a) { return D.systems.filter(function (s) { return s.split === a.split && s.id !== a.id; })[0]; };
  if (D.systems.length > 0 && otherOfSplit(D.systems[0])) $('sys-b').value = keyOf(otherOfSplit(D.systems[0]));
  var pair = function (v) { return [v, v]; };
  options($('f-stratum'), uniq(D.queries.map(function (q) { return q.stratum; })).map(pair), true);
  options($('f-daac'), uniq([].concat.apply([], D.queries.map(function (q) { return q.daacs; }))).map(pair), true);
  options($('f-style'), uniq(D.queries.map(function (q) { return q.style; })).map(pair), true);
  ['f-daac', 'f-style'].forEach(function (id) { if ($(id).options.length < 2) $(id).disabled = true; });

  function rows() {
    var a = byId[$('sys-a').value], b = byId[$('sys-b').value], m = $('metric').value;
    var st = $('f-stratum').value, da = $('f-daac').value, sy = $('f-style').value;
    return D.queries.filter(function (q) {
      return q.split === a.split && q.split === b.split && (!st || q.stratum === st) && (!da || q.daacs.indexOf(da) >= 0) && (!sy || q.style === sy);
    }).map(function (q) { return { q: q, d: a[m][q.id] - b[m][q.id] }; }).sort(function (x, y) { return y.d - x.d || (x.q.id < y.q.id ? -1 : 1); });
  }

  function plot() {
    var a = byId[$('sys-a').value], b = byId[$('sys-b').value], m = $('metric').value, r = rows();
    var W = 1200, H = 300, pad = 40, n = Math.max(r.length, 1), bw = (W - 2 * pad) / n, mid = H / 2, sc = (H / 2 - 20);
    var better = r.filter(function (x) { return x.d > 0; }).length, worse = r.filter(function (x) { return x.d < 0; }).length;
    var mean = r.reduce(function (s, x) { return s + x.d; }, 0) / n;
    if (a.split !== b.split) $('summary').textContent = 'A is a run of the ' + a.split + ' split and B of the ' + b.split + ' split: pick two runs of one split to compare them query by query.';
    else $('summary').textContent = r.length + ' queries: A (' + a.label + ') better on ' + better + ', B (' + b.label + ') better on ' + worse + ', tied on ' + (r.length - better - worse) + '; mean Δ' + m + ' ' + mean.toFixed(3) + '.';
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
    svg += '<line x1="' + pad + '" x2="' + (W - pad) + '" y1="' + mid + '" y2="' + mid + '" stroke="#888"/>';
    [-1, -0.5, 0.5, 1].forEach(function (t) { var y = mid - t * sc; svg += '<line x1="' + pad + '" x2="' + (W - pad) + '" y1="' + y + '" y2="' + y + '" stroke="#eee"/><text x="4" y="' + (y + 4) + '" font-size="11">' + t + '</text>'; });
    svg += '<text x="' + pad + '" y="14" font-size="12">Δ' + m + ' = ' + esc(a.label) + ' − ' + esc(b.label) + ' per query, sorted</text>';
    r.forEach(function (x, i) {
      var h = Math.abs(x.d) * sc, y = x.d >= 0 ? mid - h : mid;
      svg += '<rect class="q' + (x.q.id === selected ? ' sel' : '') + '" data-q="' + esc(x.q.id) + '" x="' + (pad + i * bw) + '" y="' + y + '" width="' + Math.max(bw - 1, 1) + '" height="' + Math.max(h, 1) + '" fill="' + (x.d > 0 ? '#2a7ab0' : x.d < 0 ? '#d0652b' : '#999') + '"><title>' + esc(x.q.id + (x.q.text ? ': ' + x.q.text : '') + ' — Δ' + m + ' ' + x.d.toFixed(3)) + '</title></rect>';
    });
    $('plot').innerHTML = svg + '</svg>';
  }

  // one scorer's part: normalised (convex) or its RRF term 1/(k + rank), with the raw score where known
  function part(name, v, raw, k) {
    if (v === undefined) return raw === undefined ? '' : name + ' raw ' + raw.toFixed(3);
    var shown = k !== undefined ? '1/(' + k + '+' + Math.round(1 / v - k) + ')' : v.toFixed(3);
    return name + ' ' + shown + (raw === undefined ? '' : ' (raw ' + raw.toFixed(3) + ')');
  }
  function partsText(p) {
    if (!p) return '';
    var out = [];
    if (p.rrfK !== undefined) out.push('RRF k=' + p.rrfK);
    out.push(part('BM25', p.bm25, p.bm25Raw, p.rrfK));
    out.push(part('semantic', p.semantic, p.semanticRaw, p.rrfK));
    if (p.alpha !== undefined) out.push('α ' + (Math.round(p.alpha * 1000) / 1000));
    if (p.retrievalRank !== undefined) out.push('retrieval #' + p.retrievalRank);
    if (p.constraints && p.constraints.length) out.push(p.constraints.join('; '));
    else if (p.factor !== undefined && p.factor !== 1) out.push('rules ×' + p.factor);
    return out.filter(Boolean).join(' · ');
  }

  function table(sys, other, q) {
    var top = sys.top[q.id] || [], mine = sys.ranks[q.id] || {}, theirs = other.ranks[q.id] || {};
    var hasJudge = top.some(function (e) { return e.judge !== undefined; });
    var h = '<h3>' + esc(sys.label) + ' — AP ' + sys.AP[q.id].toFixed(3) + ', RR ' + sys.RR[q.id].toFixed(3) + '</h3>';
    h += '<table class="top" data-system="' + esc(sys.id) + '"><thead><tr><th>#</th><th>dataset</th><th>score</th><th>vs ' + esc(other.label) + '</th>' + (hasJudge ? '<th>judge</th>' : '') + '</tr></thead><tbody>';
    top.forEach(function (e, i) {
      var info = D.datasets[e.id] || {}, o = theirs[e.id], move;
      if (o === undefined) move = '<span class="up">new (not in its top ' + D.depth + ')</span>';
      else if (o === i + 1) move = '=';
      else move = '<span class="' + (o > i + 1 ? 'up' : 'down') + '">' + (o > i + 1 ? '↑' : '↓') + Math.abs(o - i - 1) + ' (its #' + o + ')</span>';
      h += '<tr class="result' + (e.rel ? ' hit' : '') + '" data-dataset="' + esc(e.id) + '"><td>' + (i + 1) + '</td><td>' + (e.rel ? '✓ ' : '') + '<code>' + esc(e.id) + '</code>' +
        (info.title ? '<br>' + esc(info.title) : '') + (info.daac ? ' <span class="parts">[' + esc(info.daac) + ']</span>' : '') +
        (e.parts ? '<div class="parts score-parts">' + esc(partsText(e.parts)) + '</div>' : '') + '</td><td class="num">' + e.score.toFixed(4) + '</td><td>' + move + '</td>' +
        (hasJudge ? '<td>' + (e.judge === undefined ? '' : esc(e.judge)) + '</td>' : '') + '</tr>';
    });
    var missed = q.relevant.filter(function (d) { return !top.some(function (e) { return e.id === d; }); });
    h += '</tbody></table>';
    if (missed.length) h += '<p class="parts">Labelled, not in this top ' + D.topK + ': ' + missed.map(function (d) { return '<code>' + esc(d) + '</code>' + (mine[d] ? ' (#' + mine[d] + ')' : ' (below #' + D.depth + ')'); }).join(', ') + '</p>';
    return h;
  }

  function show(qid) {
    selected = qid;
    var q = qById[qid], a = byId[$('sys-a').value], b = byId[$('sys-b').value];
    if (!q || q.split !== a.split || q.split !== b.split) { selected = null; $('detail').innerHTML = '<p class="hint">Click a bar to see the query\\'s results.</p>'; plot(); return; }
    var info = ['split ' + q.split, q.stratum ? 'stratum ' + q.stratum : '', q.style ? 'style ' + q.style : '', q.daacs.length ? 'DAAC ' + q.daacs.join(', ') : ''].filter(Boolean).join(' · ');
    $('detail').innerHTML = '<h2 id="query-title">' + esc(q.id) + (q.text ? ': ' + esc(q.text) : '') + '</h2><p class="parts">' + esc(info) + ' · ' + q.relevant.length + ' labelled</p>' +
      '<div class="pair"><div id="top-a">' + table(a, b, q) + '</div><div id="top-b">' + table(b, a, q) + '</div></div>';
    plot();
  }

  $('plot').addEventListener('click', function (ev) { var t = ev.target; if (t && t.getAttribute && t.getAttribute('data-q')) show(t.getAttribute('data-q')); });
  ['sys-a', 'sys-b', 'metric', 'f-stratum', 'f-daac', 'f-style'].forEach(function (id) {
    $(id).addEventListener('change', function () { if (selected && (id === 'sys-a' || id === 'sys-b')) show(selected); else plot(); });
  });
  plot();
})();
`;
