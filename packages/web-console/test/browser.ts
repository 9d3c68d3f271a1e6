import { fileURLToPath } from 'node:url';
import { assertBuilt as assertAppBuilt, inspectAtEachWidth as inspectApp } from '@gsp/test-kit/browser';
import type { Page } from 'playwright-core';

/** The browser harness of @gsp/test-kit, bound to the web console's folders. */
export { launchBrowser, openPage, pageProblems, seriousA11yViolations, WIDTHS } from '@gsp/test-kit/browser';
export type { AxeViolation, OpenedPage } from '@gsp/test-kit/browser';

/** Where screenshots go (gitignored); CI keeps them as test artefacts. */
export const ARTEFACTS_DIR = fileURLToPath(new URL('../test-artefacts/', import.meta.url));

/** The built console, as `npm run build -w packages/web-console` writes it. */
export const DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url));

/** Fails with the fix when the console has not been built (root `npm test` builds it in `pretest`). */
export function assertBuilt(): void {
  assertAppBuilt(DIST_DIR, 'the console', 'packages/web-console');
}

/** Axe at 1280 and 375 px, and `<name>-<width>.png` in the console's test-artefacts/. */
export function inspectAtEachWidth(page: Page, name: string): Promise<string[]> {
  return inspectApp(page, name, ARTEFACTS_DIR);
}
