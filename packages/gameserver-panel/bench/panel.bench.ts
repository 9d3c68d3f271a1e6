/**
 * The built panel's weight and speed, measured in one run against a real control plane on
 * kube-lite with Redis (test/stack.ts), signed in through the panel's API-key sign-in:
 * - JavaScript and CSS of the build, gzipped (budget: JS under 250 KiB, the terminal included);
 * - the list of 1,000 game servers to first render: navigation to the page's `gsp:first-rows`
 *   performance mark; cold (a new browser context, nothing cached) and warm (the same page again);
 * - a change to one of 1,000 servers (a kube-lite status patch) until the page's DOM shows it,
 *   while 50 pages are open on the list (one browser, a context each), measured in several of them;
 * - memory per open live feed on the server (heap and RSS delta, 50 and 200 feeds), the feeds
 *   opened by another process so that their client side is not counted.
 * `npm run bench -w packages/gameserver-panel` (builds first).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeLite } from '@gsp/kube-lite';
import { assertBuilt, launchBrowser } from '@gsp/test-kit/browser';
import { BASIC_ADMIN, DIST_DIR, seedServers, startPanelStack, until } from '../test/stack.js';

const SERVERS = Number(process.env.BENCH_SERVERS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const PAGES = 50;
/** The pages (of the 50) whose DOM is watched for each change. */
const MEASURED_PAGES = [0, 12, 25, 37, 49];
const JS_BUDGET_KIB = 250;
const FIRST_RENDER_BUDGET_MS = 1000;
const CHANGE_BUDGET_MS = 1000;
/** The first row of the list (sorted by namespace, then name): in the viewport of every page. */
const WATCHED = 'gs-0000';

const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) };

async function sizes(dist: string): Promise<{ js: number; css: number; files: string[] }> {
  const dir = join(dist, 'assets');
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

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function summary(ms: number[], quantiles: [string, number][]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const parts = quantiles.map(([name, q]) => `${name} ${quantile(sorted, q).toFixed(0)} ms`);
  return `${parts.join(', ')}, max ${quantile(sorted, 1).toFixed(0)} ms (${ms.length} samples)`;
}

/** Signs `context` in through the panel's API-key sign-in: the cookie lands in its jar. */
async function signIn(context: BrowserContext, panelUrl: string, key: string): Promise<void> {
  const res = await context.request.post(`${panelUrl}auth/sign-in`, {
    headers: { 'x-gsp-panel': '1' },
    data: { method: 'apikey', key },
  });
  if (res.status() !== 204) throw new Error(`panel sign-in answered ${res.status()}: ${await res.text()}`);
}

/**
 * In the page, milliseconds from navigation start to: the HTML's last byte, DOMContentLoaded (the
 * module scripts have run) and the session's answer. Source text: tsx would add helpers the page
 * does not have to a function.
 */
const MILESTONES = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const session = performance.getEntriesByType('resource').find((e) => e.name.includes('auth/session'));
  return [nav?.responseEnd ?? NaN, nav?.domContentLoadedEventEnd ?? NaN, session?.responseEnd ?? NaN];
})()`;

/** Milliseconds from navigation start to the list's first rows, and to the milestones before them. */
async function firstRows(page: Page, url: string): Promise<number[]> {
  await page.goto(url);
  const handle = await page
    .waitForFunction(() => performance.getEntriesByName('gsp:first-rows')[0]?.startTime, { timeout: 30_000 })
    .catch(async (err: unknown) => {
      const text = await page.locator('body').innerText();
      throw new Error(`no first rows; the page says: ${text.slice(0, 400)}`, { cause: err });
    });
  const rows = (await handle.jsonValue()) as number;
  return [rows, ...((await page.evaluate(MILESTONES)) as number[])];
}

const median = (ms: readonly number[]): string =>
  quantile(
    [...ms].sort((a, b) => a - b),
    0.5,
  ).toFixed(0);

async function firstRender(browser: Browser, panelUrl: string, key: string): Promise<void> {
  const cold: number[] = [];
  const warm: number[] = [];
  const milestones: number[][] = [[], [], []];
  for (let i = 0; i <= RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(context, panelUrl, key);
      const page = await context.newPage();
      const [c = NaN, ...steps] = await firstRows(page, panelUrl);
      const [w = NaN] = await firstRows(page, panelUrl);
      // The first round warms the server's and the browser's code paths.
      if (i > 0) {
        cold.push(c);
        warm.push(w);
        steps.forEach((ms, j) => milestones[j]?.push(ms));
      }
    } finally {
      await context.close();
    }
  }
  const q: [string, number][] = [
    ['median', 0.5],
    ['p90', 0.9],
  ];
  console.log(`list of ${SERVERS} to first rows: cold ${summary(cold, q)}; warm ${summary(warm, q)}`);
  const [html = [], scripts = [], session = []] = milestones;
  console.log(
    `  cold, medians from navigation: HTML ${median(html)} ms, scripts run (DOMContentLoaded) ${median(scripts)} ms, ` +
      `session answered ${median(session)} ms, first rows ${median(cold)} ms`,
  );
  const worst = Math.max(
    quantile(
      [...cold].sort((a, b) => a - b),
      0.9,
    ),
    quantile(
      [...warm].sort((a, b) => a - b),
      0.9,
    ),
  );
  if (worst >= FIRST_RENDER_BUDGET_MS) console.log(`OVER BUDGET: first rows p90 ${worst.toFixed(0)} ms`);
}

declare global {
  interface Window {
    gspBenchSeen?: Promise<number>;
  }
}

/**
 * In the page: `window.gspBenchSeen` resolves with the wall-clock time at which the watched row
 * shows the state. Source text, not a function: tsx would add helpers the page does not have.
 */
const WATCH_STATE = `([name, state]) => {
  window.gspBenchSeen = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const link = Array.from(document.querySelectorAll('[role="row"] a')).find((a) => a.textContent === name);
      if (link?.closest('[role="row"]')?.querySelector('.state')?.textContent !== state) return;
      observer.disconnect();
      resolve(performance.timeOrigin + performance.now());
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}`;

function patchState(kube: KubeLite, state: string) {
  return kube.kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: 'agones.dev',
      version: 'v1',
      namespace: 'games',
      plural: 'gameservers',
      name: WATCHED,
      body: { status: { state } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function changeLatency(browser: Browser, panelUrl: string, key: string, kube: KubeLite): Promise<void> {
  // A context per page: a browser holds at most 6 HTTP/1.1 connections per origin and profile, and
  // each open list holds one (its feed), so pages sharing a context would wait on each other.
  const contexts: BrowserContext[] = [];
  const pages: Page[] = [];
  for (let i = 0; i < PAGES; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    await signIn(context, panelUrl, key);
    const page = await context.newPage();
    await page.goto(panelUrl);
    await page
      .getByRole('link', { name: WATCHED, exact: true })
      .waitFor({ timeout: 30_000 })
      .catch(async (err: unknown) => {
        const text = await page.locator('body').innerText();
        throw new Error(`page ${i}: no ${WATCHED}; the page says: ${text.slice(0, 400)}`, { cause: err });
      });
    pages.push(page);
  }
  const measured = MEASURED_PAGES.map((i) => pages[i] as Page);
  const latencies: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const state = i % 2 === 0 ? 'Reserved' : 'Ready';
    const watch = `(${WATCH_STATE})(${JSON.stringify([WATCHED, state])})`;
    await Promise.all(measured.map((page) => page.evaluate(watch)));
    const sent = Date.now();
    await patchState(kube, state);
    const seen = await Promise.all(measured.map((page) => page.evaluate(() => window.gspBenchSeen as Promise<number>)));
    latencies.push(...seen.map((at) => at - sent));
  }
  console.log(
    `a change to 1 of ${SERVERS} visible in the DOM, ${PAGES} pages open (${measured.length} watched): ${summary(
      latencies,
      [
        ['p50', 0.5],
        ['p99', 0.99],
      ],
    )}`,
  );
  const p99 = quantile(
    [...latencies].sort((a, b) => a - b),
    0.99,
  );
  if (p99 >= CHANGE_BUDGET_MS) console.log(`OVER BUDGET: change p99 ${p99.toFixed(0)} ms`);
  await Promise.all(contexts.map((context) => context.close()));
}

const CLIENTS = join(dirname(fileURLToPath(import.meta.url)), 'feed-clients.ts');

/** Opens `count` feeds from another process; resolves once each has its snapshot. */
async function openFeeds(origin: string, cookie: string, count: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENTS, origin, cookie, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => child.kill());
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(`open ${count}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the feed clients exited with ${code}`)));
  });
  return child;
}

async function settledMemory(): Promise<{ heap: number; rss: number }> {
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

async function feedMemory(origin: string, panelUrl: string, key: string): Promise<void> {
  if (global.gc === undefined) throw new Error('run with node --expose-gc');
  const res = await fetch(`${panelUrl}auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gsp-panel': '1' },
    body: JSON.stringify({ method: 'apikey', key }),
  });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (res.status !== 204 || cookie === '') throw new Error(`panel sign-in answered ${res.status}`);
  const base = await settledMemory();
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const report = async (streams: number) => {
    const now = await settledMemory();
    console.log(
      `memory per open feed, ${streams} feeds: ` +
        `heap ${kib((now.heap - base.heap) / streams)}, RSS ${kib((now.rss - base.rss) / streams)} ` +
        `(heap +${kib(now.heap - base.heap)}, RSS +${kib(now.rss - base.rss)} in all)`,
    );
  };
  const first = await openFeeds(origin, cookie, 50);
  await report(50);
  const more = await openFeeds(origin, cookie, 150);
  await report(200);
  first.kill();
  more.kill();
}

async function main(): Promise<void> {
  assertBuilt(DIST_DIR, 'the game-server panel', 'packages/gameserver-panel');
  // A copy of this build: another build of the workspace meanwhile would empty dist/ under the pages.
  const dist = `${await mkdtemp(join(tmpdir(), 'panel-bench-'))}/`;
  t.teardown(() => rm(dist, { recursive: true, force: true }));
  await cp(DIST_DIR, dist, { recursive: true });
  const { js, css, files } = await sizes(dist);
  console.log(`built assets (gzip): ${files.join(', ')}`);
  console.log(
    `JavaScript ${(js / 1024).toFixed(1)} KiB gzipped (budget ${JS_BUDGET_KIB} KiB, the terminal included), ` +
      `CSS ${(css / 1024).toFixed(1)} KiB gzipped`,
  );

  const started = Date.now();
  const stack = await startPanelStack(t, { PANEL_DIST_DIR: dist });
  await seedServers(stack.kube, 'games', SERVERS);
  await until(
    `${SERVERS} game servers Ready`,
    async () => {
      const res = await stack.app.inject({ url: '/api/v1/gameservers?state=Ready', headers: BASIC_ADMIN });
      return res.statusCode === 200 && (res.json() as unknown[]).length === SERVERS;
    },
    120_000,
  );
  console.log(`set-up: ${SERVERS} game servers Ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const key = await stack.createApiKey('admin', 'bench-admin');
  const browser = await launchBrowser(t);
  await firstRender(browser, stack.panelUrl, key);
  await changeLatency(browser, stack.panelUrl, key, stack.kube);
  await browser.close();
  await feedMemory(stack.origin, stack.panelUrl, key);
  if (js / 1024 >= JS_BUDGET_KIB) throw new Error(`the panel's JavaScript is over its ${JS_BUDGET_KIB} KiB budget`);
}

try {
  await main();
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
