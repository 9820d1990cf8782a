/** A resumable download of a CMR collection search into a snapshot folder (datasets.jsonl). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { appendLineWhole, ensureWritableDir, readJsonl, writeFileAtomic } from '../util/fs';
import { searchCmrCollectionPages, type CmrClientOptions, type CmrSearchParams } from './cmr-client';
import { validateDataset } from './validate';

// Resumable corpus download

export interface DownloadCmrCorpusOptions extends CmrClientOptions {
  /**
   * Create empty `publications.jsonl` and `links.jsonl` next to the datasets file when neither the `.jsonl` nor the
   * `.jsonl.gz` exists, so that `loadSnapshot({dir})` can read the folder. Default true.
   */
  writeCompanions?: boolean;
}

export interface DownloadCmrCorpusResult {
  /** The datasets JSONL file written. */
  file: string;
  /** Its folder (pass as `loadSnapshot({ dir })`). */
  dir: string;
  /** Records appended in this run. */
  written: number;
  /** Records skipped because their id was already in the file (resume) or repeated within this run. */
  skippedExisting: number;
  /** Items skipped as invalid (only with `onInvalid: 'skip'`). */
  skippedInvalid: number;
  /** Records in the file now. */
  total: number;
  /** Total matches reported by CMR, or null. */
  hits: number | null;
  pages: number;
  /** Bytes of an incomplete last line (from an interrupted run) that were cut off before appending; 0 normally. */
  repairedBytes: number;
}

/** Cut an incomplete or unparsable final line (left by an interrupted write); returns bytes removed. */
function repairTail(file: string): number {
  const size = fs.statSync(file).size;
  if (size === 0) return 0;
  const buf = fs.readFileSync(file);
  let cut = buf.length;
  if (buf[buf.length - 1] !== 0x0a) {
    const nl = buf.lastIndexOf(0x0a);
    cut = nl + 1;
  }
  if (cut < buf.length) {
    fs.truncateSync(file, cut);
    return buf.length - cut;
  }
  return 0;
}

/**
 * Download a CMR collection search into `out` as JSON Lines of DatasetRecord, so that `loadSnapshot({dir})` reads it.
 * `out` is the datasets file (ending in `.jsonl`) or a folder (then `<folder>/datasets.jsonl` is used).
 *
 * The file is appended to page by page (and fsynced after each page), so an interruption keeps everything written
 * so far. Rerunning resumes: records whose id is already in the file are skipped (the search itself restarts, as
 * CMR search-after tokens expire), and an incomplete last line from a crash is cut off first. Existing lines are
 * validated; a bad one throws DATA_INVALID / DATA_PARSE naming file and line.
 */
export async function downloadCmrCorpus(params: CmrSearchParams, out: string, opts: DownloadCmrCorpusOptions = {}): Promise<DownloadCmrCorpusResult> {
  if (/\.gz$/i.test(out)) throw new EoError('INVALID_ARGUMENT', `cannot append to a gzip file: ${out} (give a .jsonl file or a folder)`);
  const file = /\.jsonl$/i.test(out) ? out : path.join(out, 'datasets.jsonl');
  const dir = path.dirname(file);
  if (path.basename(file) === 'datasets.jsonl' && fs.existsSync(path.join(dir, 'datasets.jsonl.gz')))
    throw new EoError('CONFIG', `${dir} already has datasets.jsonl.gz, which loadSnapshot would read instead of ${file}; use another folder`, { dir });
  ensureWritableDir(dir);

  const seen = new Set<string>();
  let repairedBytes = 0;
  if (fs.existsSync(file)) {
    repairedBytes = repairTail(file);
    for (const row of readJsonl(file)) {
      const d = validateDataset(row.value, { file, line: row.line });
      seen.add(d.id);
    }
  }
  let total = seen.size;

  if (opts.writeCompanions ?? true) {
    for (const stem of ['publications', 'links']) {
      const plain = path.join(dir, `${stem}.jsonl`);
      if (!fs.existsSync(plain) && !fs.existsSync(`${plain}.gz`)) writeFileAtomic(plain, '');
    }
  }

  let written = 0;
  let skippedExisting = 0;
  let skippedInvalid = 0;
  let hits: number | null = null;
  let pages = 0;
  // Each page is on disk (appended whole and fsynced) before the next request goes out.
  for await (const p of searchCmrCollectionPages(params, opts)) {
    if (p.page === 1) hits = p.hits;
    pages = p.page;
    skippedInvalid += p.skippedInvalid;
    let chunk = '';
    let n = 0;
    for (const d of p.datasets) {
      if (seen.has(d.id)) {
        skippedExisting++;
        continue;
      }
      seen.add(d.id);
      chunk += JSON.stringify(d) + '\n';
      n++;
    }
    if (n > 0) {
      appendLineWhole(file, chunk);
      written += n;
      total += n;
    }
  }
  return { file, dir, written, skippedExisting, skippedInvalid, total, hits, pages, repairedBytes };
}
