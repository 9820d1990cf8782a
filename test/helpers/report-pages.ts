// Open report-site pages (file:// URLs) in headless Debian chromium through playwright-core and say what is broken:
// console errors, page errors, images that did not load, links to files that do not exist, and any request that
// tried to leave the machine; with `math`, whether MathJax typeset the LaTeX. Shared by test/report-site.test.ts and test/notebook.test.ts.
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
  /** With `math`: MathJax output elements on the page, and markdown cells that still show `$$` or `$...$` as text. */
  math?: { typeset: number; rawTex: string[] };
}

export interface CheckPageOptions {
  /** Wait for MathJax to finish, then count its output and look for LaTeX left as text in markdown cells. */
  math?: boolean;
  /** With `math`: screenshot of the first typeset display equation's cell (scrolled into view). */
  mathScreenshot?: string;
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(chromiumExecutable())) throw new Error(`chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS });
}

/** Load one page, wait for its images, check them and every local link; optionally save a screenshot. */
export async function checkPage(browser: Browser, file: string, screenshot?: string, opts: CheckPageOptions = {}): Promise<PageCheck> {
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
    let math: PageCheck['math'];
    if (opts.math) {
      // MathJax 2 typesets after load, from its queue: wait until it has loaded and the queue has run dry.
      const ready = await page
        .waitForFunction(() => {
          const mj = (window as any).MathJax;
          return !!(mj && mj.Hub && mj.isReady);
        }, undefined, { timeout: 30_000 })
        .then(() => true, () => false);
      if (ready) await page.evaluate(() => new Promise<void>((resolve) => (window as any).MathJax.Hub.Queue(() => resolve())));
      math = await page.evaluate(() => {
        const typeset = document.querySelectorAll('.MathJax_CHTML, .mjx-chtml').length;
        // markdown cells of nbconvert's lab and classic templates; typeset TeX survives only inside <script type="math/tex">
        const cells = Array.from(document.querySelectorAll('.jp-RenderedMarkdown, .jp-MarkdownOutput, .text_cell_render'));
        const rawTex = cells.map((c) => (c as HTMLElement).innerText).filter((t) => /\$\$|\$[^$\s][^$]*\\[A-Za-z]+[^$]*\$/.test(t)).map((t) => t.slice(0, 120));
        return { typeset, rawTex };
      });
      if (opts.mathScreenshot) {
        fs.mkdirSync(path.dirname(opts.mathScreenshot), { recursive: true });
        const eq = page.locator('.MathJax_Display, .mjx-chtml.MJXc-display').first();
        if ((await eq.count()) > 0) await eq.scrollIntoViewIfNeeded();
        await page.screenshot({ path: opts.mathScreenshot, fullPage: false });
      }
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
      ...(math ? { math } : {}),
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
    ...(c.math && c.math.typeset === 0 ? [`${at}: no math typeset (no MathJax output elements)`] : []),
    ...(c.math?.rawTex ?? []).map((t) => `${at}: LaTeX left as text in a markdown cell: ${t}`),
  ];
}
