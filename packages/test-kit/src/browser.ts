/**
 * The browser test harness of our apps (the web console, the game-server panel): the Chromium that
 * `npm ci` brings, pages that record CSP violations and errors, axe-core, screenshots at each width.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Chromium from '@sparticuz/chromium';
import axe from 'axe-core';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { Tap } from './tap.js';

export type { Tap } from './tap.js';

export const WIDTHS = [1280, 375] as const;

/**
 * Fails with the fix when an app has not been built: `what` names it in the sentence ("the
 * console"), `workspace` is the folder `npm run build -w` takes.
 */
export function assertBuilt(distDir: string, what: string, workspace: string): void {
  if (!existsSync(join(distDir, 'index.html')))
    throw new Error(`${what} is not built (no ${distDir}index.html): run npm run build -w ${workspace}`);
}

// Flags of @sparticuz/chromium made for AWS Lambda that would hide what we test: the same-origin
// policy and mixed content rules stay on; Playwright passes its own headless flag.
const UNWANTED_FLAGS = ['--disable-web-security', '--allow-running-insecure-content', '--headless', '--single-process'];

const FONTS_CONF = 'gsp-fonts.conf';
const LAYOUT = 2;

/**
 * The package ships one font, Open Sans. A monospace font found on the machine is added by name
 * only (copied, not its whole folder, so no other family changes), so a terminal's text, which
 * names it, is drawn in fixed-width cells as in a person's browser. Absent, the text falls back.
 */
const MONOSPACE_FONTS = '/usr/share/fonts/truetype/dejavu';

/** Copies the machine's DejaVu Sans Mono files into `to`, if it has them. */
async function copyMonospaceFonts(to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  const files = existsSync(MONOSPACE_FONTS) ? await readdir(MONOSPACE_FONTS) : [];
  for (const file of files.filter((f) => f.startsWith('DejaVuSansMono')))
    await copyFile(join(MONOSPACE_FONTS, file), join(to, file));
}

/**
 * The Chromium that `npm ci` brought, unpacked once into a folder of its own version. Test files
 * run in parallel: each unpacks into a fresh folder and renames it into place, so none ever sees
 * a half-written browser (the package's own unpacking into `$TMPDIR/chromium` is not atomic).
 * `LAYOUT` grows when what is unpacked changes, so an older folder is never taken for a newer.
 */
async function unpackedChromium(): Promise<string> {
  const pkgDir = dirname(dirname(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'))));
  const { version } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const home = tmpdir();
  const dir = join(home, `gsp-chromium-${version}-${LAYOUT}`);
  if (existsSync(join(dir, FONTS_CONF))) return dir;
  const staging = await mkdtemp(join(home, `gsp-chromium-${version}-${LAYOUT}-staging-`));
  const saved = process.env.TMPDIR;
  // The package unpacks into os.tmpdir(), read from TMPDIR on each call.
  process.env.TMPDIR = staging;
  try {
    Chromium.setGraphicsMode = false;
    await Chromium.executablePath(join(pkgDir, 'bin'));
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  await copyMonospaceFonts(join(staging, 'fonts-mono'));
  // The package's fonts.conf names /tmp/fonts; ours names the fonts where they are, written last.
  const conf =
    '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n' +
    `<fontconfig><dir>${join(dir, 'fonts')}</dir><dir>${join(dir, 'fonts-mono')}</dir>` +
    `<cachedir>${join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`;
  await writeFile(join(staging, FONTS_CONF), conf);
  try {
    await rename(staging, dir);
  } catch {
    // Another test file won the race: use its copy.
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
}

/**
 * One browser for the test file, closed at its end. `args` adds command-line switches, such as
 * `--host-resolver-rules` to reach public host names on loopback.
 */
export async function launchBrowser(t: Tap, options: { args?: string[] } = {}): Promise<Browser> {
  const dir = await unpackedChromium();
  const browser = await chromium.launch({
    executablePath: join(dir, 'chromium'),
    args: [
      ...Chromium.args.filter((arg) => !UNWANTED_FLAGS.some((flag) => arg.startsWith(flag))),
      ...(options.args ?? []),
    ],
    env: { ...process.env, FONTCONFIG_FILE: join(dir, FONTS_CONF), HOME: dir },
  });
  t.teardown(() => browser.close());
  return browser;
}

export interface OpenedPage {
  page: Page;
  /** CSP violations and uncaught errors seen so far: a test expects none. */
  problems: string[];
}

declare global {
  interface Window {
    gspCspViolations?: string[];
  }
}

/** Opens `url` in a fresh context (no shared cookies), recording CSP violations and page errors. */
export async function openPage(
  t: Tap,
  browser: Browser,
  url: string,
  options: BrowserContextOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 800 }, ...options });
  t.teardown(() => context.close());
  await context.addInitScript(() => {
    window.gspCspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.gspCspViolations?.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline code'}`),
    );
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** CSP violations the page reported to itself, plus the problems `openPage` heard of. */
export async function pageProblems(opened: OpenedPage): Promise<string[]> {
  const violations = await opened.page.evaluate(() => window.gspCspViolations ?? []);
  return [...opened.problems, ...violations.map((v) => `CSP violation: ${v}`)];
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** Runs axe-core in the page and answers its serious and critical violations. */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (a <script> tag would be).
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.length }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * At each width: runs axe (serious or critical violations are returned, labelled with the width)
 * and writes `<name>-<width>.png` (the full page) to `artefactsDir`.
 */
export async function inspectAtEachWidth(page: Page, name: string, artefactsDir: string): Promise<string[]> {
  await mkdir(artefactsDir, { recursive: true });
  const found: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const v of await seriousA11yViolations(page)) found.push(`${width}px: ${v.impact} ${v.id} (${v.help})`);
    await page.screenshot({ path: join(artefactsDir, `${name}-${width}.png`), fullPage: true });
  }
  return found;
}
