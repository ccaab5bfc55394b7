/**
 * The board's first paint in Chromium (Playwright, /usr/bin/chromium): in fresh contexts, navigation
 * start to the first lane card laid out visible in the viewport, with the first contentful paint.
 */
import { performance } from 'node:perf_hooks';

/** In the page: the time (ms since navigation start) of the first frame in which a lane card is laid out in the viewport. */
const FIRST_CARD_PROBE = `(() => {
  const check = () => {
    const el = document.querySelector('[data-lane] article[data-order]');
    if (el) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.top < window.innerHeight) { window.__cbCard = performance.now(); return; }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

export async function firstPaint(port: number, runs: number): Promise<{ cardMs: number[]; fcpMs: number[]; wallMs: number[] }> {
  const { chromium } = await import('playwright');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'], timeout: 60_000 });
  const out = { cardMs: [] as number[], fcpMs: [] as number[], wallMs: [] as number[] };
  try {
    for (let i = 0; i < runs; i++) {
      // A fresh context each time: empty HTTP cache, as for a first visit.
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      try {
        const page = await ctx.newPage();
        // Strings, not functions: tsx's transform would wrap functions in helpers the page lacks.
        await page.addInitScript(FIRST_CARD_PROBE);
        const t = performance.now();
        await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'commit', timeout: 60_000 });
        await page.locator('[data-lane] article[data-order]').first().waitFor({ state: 'visible', timeout: 60_000 });
        out.wallMs.push(performance.now() - t);
        // Polled from here: the page's CSP refuses the eval a waitForFunction polling in the page
        // would use. The board rendered on the server can be visible before the probe's frame,
        // and the probe runs before that frame is painted: FCP is waited for too (NaN after 10 s).
        const read = "({ card: window.__cbCard, fcp: (performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint') || { startTime: NaN }).startTime })";
        let m = await page.evaluate<{ card: number | undefined; fcp: number }>(read);
        for (const t0 = performance.now(); m.card === undefined || Number.isNaN(m.fcp); m = await page.evaluate<{ card: number | undefined; fcp: number }>(read)) {
          if (performance.now() - t0 > 10_000) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        if (m.card === undefined) throw new Error('the first-card probe never fired');
        out.cardMs.push(m.card);
        out.fcpMs.push(m.fcp);
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
  }
  return out;
}
