import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { phraseMatcher, type PhraseMatcher } from './phrases';
import { readRouterJson } from './data';
import type { BBox, GazetteerPlace, PlaceMatch } from './types';

interface PlacesFile {
  ambiguousCountryNames: string[];
  places: { name: string; kind: GazetteerPlace['kind']; bbox: number[]; aliases: string[] }[];
}

export interface Gazetteer {
  places: GazetteerPlace[];
  matcher: PhraseMatcher<GazetteerPlace>;
  /** Lower-case names that only count when written with a capital (e.g. "Chad", "US"). */
  ambiguous: Set<string>;
}

type Ring = number[][];

/** Signed-free planar area of a ring in degrees², weighted by cos(latitude) (enough to rank polygons by size). */
function ringArea(ring: Ring): number {
  let a = 0;
  let lat = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    a += (ring[j][0] - ring[i][0]) * (ring[j][1] + ring[i][1]);
    lat += ring[i][1];
  }
  return Math.abs(a / 2) * Math.cos(((lat / ring.length) * Math.PI) / 180);
}

/**
 * Bounding box of a set of polygons that may straddle the antimeridian: the latitude range, and the shortest
 * longitude arc that covers every polygon's longitude interval (found as the complement of the largest gap on the
 * circle). Returns west > east when the arc crosses 180°.
 */
export function polygonsBBox(polygons: Ring[][]): BBox {
  let south = 90;
  let north = -90;
  const intervals: [number, number][] = [];
  for (const poly of polygons) {
    let w = 180;
    let e = -180;
    for (const [lon, lat] of poly[0]) {
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < south) south = lat;
      if (lat > north) north = lat;
    }
    intervals.push([w, e]);
  }
  intervals.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const iv of intervals) {
    const last = merged[merged.length - 1];
    if (last && iv[0] <= last[1]) last[1] = Math.max(last[1], iv[1]);
    else merged.push([iv[0], iv[1]]);
  }
  // Gap after each merged interval (the last one wraps to the first).
  let best = -1;
  let bestAt = merged.length - 1;
  for (let i = 0; i < merged.length; i++) {
    const next = i + 1 < merged.length ? merged[i + 1][0] : merged[0][0] + 360;
    const gap = next - merged[i][1];
    if (gap > best) {
      best = gap;
      bestAt = i;
    }
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  if (bestAt === merged.length - 1) return [round(merged[0][0]), round(south), round(merged[merged.length - 1][1]), round(north)];
  return [round(merged[bestAt + 1][0]), round(south), round(merged[bestAt][1]), round(north)];
}

/**
 * The main land masses of a country: start from its largest polygon and keep adding polygons of at least 5% of
 * that area lying within 15° of the box so far (so an archipelago stays whole, while overseas territories and
 * far-away islands, which the package's aggregates include, are left out).
 */
export function mainLandMasses(polys: Ring[][]): Ring[][] {
  const areas = polys.map((poly) => ringArea(poly[0]));
  const order = polys.map((_, i) => i).sort((a, b) => areas[b] - areas[a]);
  const maxA = areas[order[0]];
  const box = (poly: Ring[]) => {
    let w = 180, s = 90, e = -180, n = -90;
    for (const [x, y] of poly[0]) {
      w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
    }
    return [w, s, e, n];
  };
  const cur = box(polys[order[0]]);
  const kept = [polys[order[0]]];
  let grew = true;
  const left = new Set(order.slice(1).filter((i) => areas[i] >= 0.05 * maxA));
  while (grew) {
    grew = false;
    for (const i of left) {
      const b = box(polys[i]);
      const lonGap = Math.max(0, b[0] - cur[2], cur[0] - b[2]);
      const latGap = Math.max(0, b[1] - cur[3], cur[1] - b[3]);
      if (lonGap <= 15 && latGap <= 15) {
        kept.push(polys[i]);
        cur[0] = Math.min(cur[0], b[0]); cur[1] = Math.min(cur[1], b[1]); cur[2] = Math.max(cur[2], b[2]); cur[3] = Math.max(cur[3], b[3]);
        left.delete(i);
        grew = true;
      }
    }
  }
  return kept;
}

/** Version of the installed @ideditor/country-coder (its package.json is not exported, so read it from disk). */
function countryCoderVersion(): string {
  let dir = path.dirname(require.resolve('@ideditor/country-coder'));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      const v = JSON.parse(fs.readFileSync(pj, 'utf8'));
      if (v.name === '@ideditor/country-coder') return String(v.version);
    }
  }
  return 'unknown';
}

function countryPlaces(): GazetteerPlace[] {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const cc = require('@ideditor/country-coder') as {
    borders: { features: { properties: Record<string, any>; geometry: unknown }[] };
    aggregateFeature(id: string): { geometry: { type: string; coordinates: Ring[][] } } | null;
  };
  const version = countryCoderVersion();
  const out: GazetteerPlace[] = [];
  for (const f of cc.borders.features) {
    const p = f.properties;
    if (p.level !== 'country' && p.level !== 'territory') continue;
    const agg = cc.aggregateFeature(p.id);
    const geom = agg?.geometry;
    if (!geom || !geom.coordinates?.length) continue;
    const polys: Ring[][] = geom.type === 'Polygon' ? [geom.coordinates as unknown as Ring[]] : geom.coordinates as unknown as Ring[][];
    const main = mainLandMasses(polys);
    const names = [p.nameEn, ...(p.aliases ?? [])].filter((s: unknown): s is string => typeof s === 'string').map((s) => s.toLowerCase());
    if (p.nameEn === "People's Republic of China") names.push('china');
    if (p.nameEn === 'United States of America') names.push('united states', 'usa', 'us', 'u.s.', 'u.s.a.');
    if (p.nameEn === 'United Kingdom') names.push('uk', 'britain', 'great britain');
    if (p.nameEn === 'Russia') names.push('russian federation');
    if (p.nameEn === 'Democratic Republic of the Congo') names.push('drc', 'dr congo');
    out.push({ id: `country:${p.iso1A2 ?? p.id}`, name: p.nameEn, kind: 'country', bbox: polygonsBBox(main), names: [...new Set(names)], source: `@ideditor/country-coder ${version}` });
  }
  return out;
}

let cached: Gazetteer | null = null;

/**
 * The gazetteer: hand-curated oceans, seas, basins, continents and regions from lib/router/data/places.json (take
 * precedence), plus every country and territory of @ideditor/country-coder (ISC; Natural Earth / OpenStreetMap
 * derived borders bundled in the package, so it works offline) with a bounding box over its main land masses.
 * Built once per process.
 */
export function loadGazetteer(): Gazetteer {
  if (cached) return cached;
  const file = readRouterJson<PlacesFile>('places.json');
  const curated: GazetteerPlace[] = file.places.map((p, i) => {
    if (!Array.isArray(p.bbox) || p.bbox.length !== 4 || p.bbox.some((v) => typeof v !== 'number'))
      throw new EoError('DATA_INVALID', `lib/router/data/places.json: places[${i}] (${p.name}): bbox must be [west, south, east, north]`);
    const slug = p.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    return { id: `${p.kind}:${slug}`, name: p.name, kind: p.kind, bbox: p.bbox as BBox, names: [p.name.toLowerCase(), ...p.aliases], source: 'lib/router/data/places.json' };
  });
  const curatedNames = new Set(curated.flatMap((p) => p.names));
  const countries = countryPlaces().map((c) => ({ ...c, names: c.names.filter((n) => !curatedNames.has(n)) })).filter((c) => c.names.length > 0);
  const places = [...curated, ...countries];
  const entries: [string, GazetteerPlace][] = places.flatMap((p) => p.names.map((n) => [n, p] as [string, GazetteerPlace]));
  cached = { places, matcher: phraseMatcher(entries), ambiguous: new Set(file.ambiguousCountryNames) };
  return cached;
}

/**
 * Places named in a query, longest name first, without overlaps. Names listed as ambiguous count only when the query
 * writes them with a capital letter (all capitals for names of up to 3 letters: "US" but not "us").
 */
export function findPlaces(text: string, gaz: Gazetteer = loadGazetteer()): PlaceMatch[] {
  const hits = gaz.matcher.find(text, (hit) => {
    if (!gaz.ambiguous.has(hit.phrase)) return true;
    const s = hit.span.text;
    return s.length <= 3 ? s === s.toUpperCase() : s[0] === s[0].toUpperCase();
  });
  return hits.map((h) => ({ place: h.values[0], span: h.span }));
}

/** The smallest box covering several boxes (antimeridian-crossing boxes are kept as they are when alone). */
export function unionBBox(boxes: BBox[]): BBox | null {
  if (boxes.length === 0) return null;
  if (boxes.length === 1) return boxes[0];
  const polys: Ring[][] = boxes.flatMap((b) => {
    const [w, s, e, n] = b;
    const ring = (a: number, c: number): Ring[] => [[[a, s], [c, s], [c, n], [a, n], [a, s]]];
    return w <= e ? [ring(w, e)] : [ring(w, 180), ring(-180, e)];
  });
  return polygonsBBox(polys);
}
