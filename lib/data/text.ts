import type { DatasetRecord } from './types';

/** Dataset text for sentence encoders, as in the paper: shortName + longName + abstract truncated to 512 chars. */
export function datasetEncoderText(d: DatasetRecord, abstractChars = 512): string {
  return [d.shortName ?? '', d.longName, d.abstract.slice(0, abstractChars)].filter((s) => s !== '').join(' ');
}

/** Years covered by a dataset's temporal extent, as text (BM25 indexes them so "2005" can match). */
export function temporalText(d: DatasetRecord): string {
  const y0 = d.temporalStart?.slice(0, 4);
  const y1 = d.temporalEnd?.slice(0, 4);
  if (!y0) return '';
  return y1 && y1 !== y0 ? `${y0} ${y1}` : y0;
}

/** A human landing page for a dataset: its own, else the DOI, else the CMR concept page. */
export function datasetLandingPage(d: DatasetRecord): string {
  if (d.landingPage) return d.landingPage;
  if (d.doi) return `https://doi.org/${d.doi}`;
  return `https://cmr.earthdata.nasa.gov/search/concepts/${d.id}.html`;
}
