// How showFigure shows a figure (lib/report/display.ts): a person's live Jupyter kernel gets an interactive plotly
// figure (HTML, the plotly bundle inlined once), a headless run by the notebook runner ($EO_NOTEBOOK set) and any
// run outside tslab get the PNG. Checks the mode switch and both MIME bundles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as vm from 'node:vm';
import { barFigure, figureDisplayBundle, figureDisplayMode, plotlyJs } from '../lib/report';

const fig = barFigure(['q1', 'q2'], [0.5, 0.25], { title: 'AP per query' });
const png = new Uint8Array([137, 80, 78, 71]);

test('live kernel vs headless run vs outside tslab', () => {
  assert.is(figureDisplayMode(true, {}), 'live');
  assert.is(figureDisplayMode(true, { EO_NOTEBOOK: '02-hybrid' }), 'static');
  assert.is(figureDisplayMode(false, {}), 'static');
  assert.is(figureDisplayMode(false, { EO_NOTEBOOK: '02-hybrid' }), 'static');
});

test('static mode shows the PNG, or the label alone without one', () => {
  const withPng = figureDisplayBundle(fig, { mode: 'static', png, label: 'figure ap', name: 'ap', inlinePlotly: false });
  assert.equal(Object.keys(withPng).sort(), ['image/png', 'text/plain']);
  assert.is(withPng['image/png'], png);
  assert.is(withPng['text/plain'], 'figure ap');
  const noPng = figureDisplayBundle(fig, { mode: 'static', png: null, label: 'figure ap', name: 'ap', inlinePlotly: false });
  assert.equal(noPng, { 'text/plain': 'figure ap' });
});

test('live mode shows the figure as plotly HTML, the bundle inlined only when asked', () => {
  const first = figureDisplayBundle(fig, { mode: 'live', png, label: 'figure ap', name: 'ap', inlinePlotly: true });
  const later = figureDisplayBundle(fig, { mode: 'live', png, label: 'figure ap', name: 'ap', inlinePlotly: false });
  assert.equal(Object.keys(first).sort(), ['text/html', 'text/plain']);
  const html1 = first['text/html'] as string;
  const html2 = later['text/html'] as string;
  const bundleLen = plotlyJs().length;
  assert.ok(html1.length > bundleLen, 'first figure carries the plotly bundle');
  assert.ok(html2.length < 20000, `later figures reuse window.Plotly (got ${html2.length} chars)`);
  assert.not.match(html1, /<script[^>]+src=/, 'nothing is loaded from a URL');
  assert.not.match(html2, /<script[^>]+src=/);
  assert.match(html2, /Plotly\.newPlot\(/);
  assert.ok(html2.includes(JSON.stringify('AP per query')), 'the figure data is embedded');
  const id = /<div id="([^"]+)"/.exec(html2)?.[1];
  assert.ok(id && html2.includes(`getElementById(${JSON.stringify(id)})`), 'the script draws into its own div');
  // Every inline script must parse (the bundle's own `</script` is escaped, the wrapper is valid JS).
  const scripts = [...html1.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.is(scripts.length, 2);
  for (const src of scripts) new vm.Script(src);
});

test.run();
