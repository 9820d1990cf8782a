// Open report-site pages (file:// URLs) in headless Debian chromium through playwright-core and say what is broken:
// console errors, page errors, images that did not load, links to files that do not exist, and any request that
// tried to leave the machine. Shared by test/report-site.test.ts and test/notebook.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { chromiumExecutable } from '../../lib/report/export';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface PageCheck {
  file: string;
  title: string;
  consoleErrors: string[];
  brokenImages: string[];
  brokenLinks: string[];
  externalRequests: string[];
  images: number;
  links: number;
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(chromiumExecutable())) throw new Error(`chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS });
}

/** Load one page, wait for its images, check them and every local link; optionally save a screenshot. */
export async function checkPage(browser: Browser, file: string, screenshot?: string): Promise<PageCheck> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const consoleErrors: string[] = [];
  const externalRequests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => consoleErrors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file:') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    externalRequests.push(u);
    return route.abort();
  });
  try {
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    // Lazy images below the fold: load them all before judging.
    await page.evaluate(() => {
      for (const img of Array.from(document.images)) img.loading = 'eager';
    });
    await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete), undefined, { timeout: 30_000 });
    const images = await page.$$eval('img', (els) => els.map((e) => ({ src: (e as HTMLImageElement).currentSrc || (e as HTMLImageElement).src, ok: (e as HTMLImageElement).naturalWidth > 0 })));
    const hrefs = await page.$$eval('a[href]', (els) => els.map((e) => (e as HTMLAnchorElement).href));
    const brokenLinks: string[] = [];
    let links = 0;
    for (const h of hrefs) {
      const u = new URL(h);
      if (u.protocol !== 'file:') continue; // external links (papers, NASA pages) cannot be followed offline
      links++;
      u.hash = '';
      const target = fileURLToPath(u);
      if (!fs.existsSync(target)) brokenLinks.push(path.relative(path.dirname(file), target));
    }
    if (screenshot) {
      fs.mkdirSync(path.dirname(screenshot), { recursive: true });
      await page.screenshot({ path: screenshot, fullPage: false });
    }
    return {
      file,
      title: await page.title(),
      consoleErrors,
      brokenImages: images.filter((i) => !i.ok).map((i) => i.src.slice(0, 120)),
      brokenLinks,
      externalRequests,
      images: images.length,
      links,
    };
  } finally {
    await page.close();
  }
}

/** One line per problem of a page check (empty when the page is fine). */
export function pageProblems(c: PageCheck): string[] {
  const at = path.basename(c.file);
  return [
    ...c.consoleErrors.map((e) => `${at}: console: ${e}`),
    ...c.brokenImages.map((e) => `${at}: image did not load: ${e}`),
    ...c.brokenLinks.map((e) => `${at}: link to a missing file: ${e}`),
    ...c.externalRequests.map((e) => `${at}: request to the network: ${e}`),
  ];
}
