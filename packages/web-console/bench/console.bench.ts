/**
 * The built console's weight and speed: gzipped size of its JavaScript and CSS (budget: JS under
 * 200 KiB), and first load to first data, the time from navigation to the first API answer on
 * screen (the page's `gsp:first-data` performance mark), in the real browser against a real API
 * server on a fresh schema. Cold: a new browser context each run (nothing cached); warm: the same
 * context again (hashed assets come from the cache, the HTML and the API calls do not).
 * `npm run bench -w packages/web-console` (builds first); needs PostgreSQL (DATABASE_URL).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { bearer, build, PLATFORM_ADMIN, seedTenant } from '@gsp/api-server/testing';
import { assertBuilt, DIST_DIR, launchBrowser } from '../test/browser.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const JS_BUDGET_KIB = 200;

const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) };

async function sizes(): Promise<{ js: number; css: number; files: string[] }> {
  const dir = join(DIST_DIR, 'assets');
  let js = 0;
  let css = 0;
  const files: string[] = [];
  for (const name of await readdir(dir)) {
    const gz = gzipSync(await readFile(join(dir, name))).length;
    if (name.endsWith('.js')) js += gz;
    else if (name.endsWith('.css')) css += gz;
    files.push(`${name} ${(gz / 1024).toFixed(1)} KiB`);
  }
  return { js, css, files };
}

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return (
    `median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, ` + `max ${at(1).toFixed(0)} ms (${ms.length} runs)`
  );
}

/** Milliseconds from navigation start to the page's first-data mark. */
async function firstData(browser: Browser, url: string, options: BrowserContextOptions): Promise<[number, number]> {
  const context = await browser.newContext(options);
  try {
    const page = await context.newPage();
    const measure = async () => {
      await page.goto(url);
      const handle = await page.waitForFunction(() => performance.getEntriesByName('gsp:first-data')[0]?.startTime);
      return (await handle.jsonValue()) as number;
    };
    return [await measure(), await measure()];
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  assertBuilt();
  const { js, css, files } = await sizes();
  console.log(`built assets (gzip): ${files.join(', ')}`);
  console.log(
    `JavaScript ${(js / 1024).toFixed(1)} KiB gzipped (budget ${JS_BUDGET_KIB} KiB), ` +
      `CSS ${(css / 1024).toFixed(1)} KiB gzipped`,
  );

  const { app } = await build(t, { CONSOLE_DIST_DIR: DIST_DIR, LOG_LEVEL: 'warn' });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  await seedTenant(app, 'dev', { [PLATFORM_ADMIN]: 'admin' });
  const browser = await launchBrowser(t);
  const url = `${origin}/console/`;
  const views: [string, BrowserContextOptions][] = [
    ['signed out (session answer)', {}],
    ['platform admin (GET /api/v1/me)', { extraHTTPHeaders: await bearer(PLATFORM_ADMIN) }],
  ];
  for (const [view, options] of views) {
    await firstData(browser, url, options); // warms the server's and the browser's code paths
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [c, w] = await firstData(browser, url, options);
      cold.push(c);
      warm.push(w);
    }
    console.log(`first load to first data, ${view}: cold ${summary(cold)}; warm ${summary(warm)}`);
  }
  if (js / 1024 >= JS_BUDGET_KIB) throw new Error(`the console's JavaScript is over its ${JS_BUDGET_KIB} KiB budget`);
}

try {
  await main();
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
