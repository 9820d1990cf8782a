import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoteOtherResolutions, namedResolutions, otherResolutionOnly } from '../lib/search/resolution';

test('temporal resolutions named in queries and titles', () => {
  assert.equal(namedResolutions('half hourly precipitation 0.1 degree'), ['half-hourly']);
  assert.equal(namedResolutions('precip GPM 30min'), ['half-hourly']);
  assert.equal(namedResolutions('GPM IMERG Final Precipitation L3 Half Hourly 0.1 degree x 0.1 degree V07'), ['half-hourly'], 'not hourly too');
  assert.equal(namedResolutions('MERRA-2 3-hourly surface fluxes'), ['3-hourly']);
  assert.equal(namedResolutions('TRMM Ground Validation Radar Site Rain Type Map L2 1 hour 2 km V7'), ['hourly']);
  assert.equal(namedResolutions('GPM IMERG Late Precipitation L3 1 day 0.1 degree x 0.1 degree V07'), ['daily']);
  assert.equal(namedResolutions('Snow cover composite 8-Day L3 grid'), ['8-day']);
  assert.equal(namedResolutions('I want monthly or 16-day NDVI'), ['monthly']);
  assert.equal(namedResolutions('Annual land cover, daily and monthly means'), ['daily', 'monthly', 'yearly']);
  assert.equal(namedResolutions('GPM 2A DPR 1.5 hours swath; daytime overpass'), []);
});

test('a title is demoted only when it names resolutions, none of those asked', () => {
  assert.ok(otherResolutionOnly(['half-hourly'], ['daily']));
  assert.not.ok(otherResolutionOnly(['half-hourly'], []), 'a title naming none is never demoted');
  assert.not.ok(otherResolutionOnly([], ['daily']), 'a query naming none demotes nothing');
  assert.not.ok(otherResolutionOnly(['daily', 'monthly'], ['monthly', 'yearly']));
  const run = new Map([['q1', [{ docId: 'd', score: 0.9 }, { docId: 'h', score: 0.8 }, { docId: 'x', score: 0.7 }]], ['q2', [{ docId: 'd', score: 0.9 }]]]);
  const titles: Record<string, string> = { d: 'IMERG 1 day', h: 'IMERG Half Hourly', x: 'IMERG climatology' };
  const queries: Record<string, string> = { q1: 'half hourly rain', q2: 'rain' };
  const out = demoteOtherResolutions(run, (q) => queries[q], (d) => titles[d], 0.5);
  assert.equal(out.get('q1')!.map((e) => [e.docId, e.score]), [['d', 0.45], ['h', 0.8], ['x', 0.7]]);
  assert.equal(out.get('q2'), run.get('q2'), 'untouched where the query names no resolution');
  assert.throws(() => demoteOtherResolutions(run, (q) => queries[q], (d) => titles[d], 0), /factor must be in \(0, 1\]/);
});

test.run();
