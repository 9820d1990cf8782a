import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyConstraints, bboxesIntersect, constraintsFromParsed, describeConstraintEffect, spatialCoverage, temporalCoverage,
  type QueryConstraints,
} from '../lib/search/constraints';
import { parseQuery } from '../lib/router/parse';
import type { BBox } from '../lib/data/types';

const INDIA: BBox = [68.1, 6.7, 97.4, 35.5];
const ds = (temporalStart: string | null, temporalEnd: string | null, bbox: BBox | null) => ({ temporalStart, temporalEnd, bbox });

test('temporal coverage follows CMR: intersecting ranges, inclusive end day, open end = ongoing', () => {
  const since2015 = { start: '2015-01-01', end: '2026-11-30' };
  assert.is(temporalCoverage(ds('1997-09-04T00:00:00Z', '2010-12-11T00:00:00Z', null), since2015), 'outside'); // SeaWiFS
  assert.is(temporalCoverage(ds('2000-02-24T00:00:00Z', null, null), since2015), 'covers'); // ongoing
  assert.is(temporalCoverage(ds('2000-01-01T00:00:00Z', '2015-01-01T00:00:00Z', null), since2015), 'covers'); // touches the first day
  assert.is(temporalCoverage(ds('2014-01-01T00:00:00Z', '2014-12-31T23:59:59Z', null), since2015), 'outside');
  assert.is(temporalCoverage(ds('2026-11-30T12:00:00Z', null, null), since2015), 'covers'); // same last day, later hour
  assert.is(temporalCoverage(ds('2026-12-01T00:00:00Z', null, null), since2015), 'outside');
  assert.is(temporalCoverage(ds(null, null, null), since2015), 'unknown');
  assert.is(temporalCoverage(ds('garbage', null, null), since2015), 'unknown');
  assert.is(temporalCoverage(ds('1990-01-01', '1991-01-01', null), null), 'unconstrained');
});

test('boxes intersect like CMR bounding_box, across the antimeridian too', () => {
  assert.ok(bboxesIntersect([-180, -90, 180, 90], INDIA), 'global covers India');
  assert.ok(!bboxesIntersect([-125, 24, -66, 50], INDIA), 'CONUS misses India');
  assert.ok(bboxesIntersect([97.4, 0, 120, 10], INDIA), 'touching edges count');
  const pacific: BBox = [150, -30, -120, 30]; // crosses the antimeridian
  assert.ok(bboxesIntersect(pacific, [170, -5, 175, 5]));
  assert.ok(bboxesIntersect(pacific, [-150, -5, -140, 5]));
  assert.ok(!bboxesIntersect(pacific, [0, -5, 10, 5]));
  assert.ok(!bboxesIntersect([60, 40, 100, 60], INDIA), 'north of India');
  assert.is(spatialCoverage(ds(null, null, null), [{ name: 'India', bbox: INDIA }]), 'unknown');
  assert.is(spatialCoverage(ds(null, null, [-10, 35, 40, 70]), [{ name: 'India', bbox: INDIA }, { name: 'Europe', bbox: [-25, 34, 45, 72] }]), 'covers');
});

test('demote multiplies violators once per violated constraint; filter removes them; satisfied and unknown stay', () => {
  const c: QueryConstraints = { period: { start: '2015-01-01', end: '2020-12-31' }, places: [{ name: 'India', bbox: INDIA }] };
  const datasets = [
    ds('2000-01-01', null, [-180, -90, 180, 90]), // covers both
    ds('1997-01-01', '2010-12-31', [-180, -90, 180, 90]), // period outside
    ds('1997-01-01', '2010-12-31', [-125, 24, -66, 50]), // both outside
    ds(null, null, null), // unknown extent
  ];
  const scores = Float32Array.from([0.2, 1, 0.9, 0.5]);
  const d = applyConstraints(scores, datasets, c, { mode: 'demote', penalty: 0.5 });
  assert.equal(Array.from(d.scores), [0.2, 0.5, 0.9 * 0.25, 0.5].map((x) => Math.fround(x)));
  assert.equal([...d.effects.keys()], [1, 2]);
  assert.equal(d.effects.get(2), { temporal: 'outside', spatial: 'outside', factor: 0.25 });
  assert.match(describeConstraintEffect(datasets[1], d.effects.get(1)!, c), /ends 2010-12-31, before the asked period 2015-01-01..2020-12-31 \(×0.5\)/);
  assert.match(describeConstraintEffect(datasets[2], d.effects.get(2)!, c), /misses India/);
  const f = applyConstraints(scores, datasets, c, { mode: 'filter' });
  assert.equal(Array.from(f.scores), [Math.fround(0.2), -Infinity, -Infinity, 0.5]);
  const off = applyConstraints(scores, datasets, c, { mode: 'off' });
  assert.equal(Array.from(off.scores), Array.from(scores));
  const onlyTime = applyConstraints(scores, datasets, c, { spatial: false });
  assert.is(onlyTime.effects.get(2)!.factor, 0.5);
  assert.throws(() => applyConstraints(scores, datasets, c, { penalty: 2 }), /penalty must lie in \[0, 1\]/);
  assert.throws(() => applyConstraints(scores.subarray(1), datasets, c), /differ in length/);
});

test('constraints from the router: "since 2015" and "over India"; a global place constrains nothing', () => {
  const parsed = parseQuery('monthly aerosol optical depth over India since 2015', { now: new Date('2026-11-30T00:00:00Z') });
  const c = constraintsFromParsed(parsed);
  assert.equal(c.period, { start: '2015-01-01', end: '2026-11-30' });
  assert.equal(c.places.map((p) => p.name), ['India']);
  const g = constraintsFromParsed(parseQuery('global sea surface temperature in 2019'));
  assert.equal(g.places, []);
  assert.equal(g.period, { start: '2019-01-01', end: '2019-12-31' });
});

test.run();
