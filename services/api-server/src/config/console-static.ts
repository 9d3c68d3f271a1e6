import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { nonEmpty } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

/** How the built web console is served under `/console/`. */
export interface ConsoleStaticConfig {
  /** The folder `npm run build -w packages/web-console` writes; undefined when it cannot be found. */
  distDir: string | undefined;
}

/** The web console workspace's `dist/`, found through its package (a workspace link in this repository). */
function defaultDistDir(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@gsp/web-console/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

export function readConsoleStaticConfig(env: Env): ConsoleStaticConfig {
  const dir = nonEmpty(env, 'CONSOLE_DIST_DIR');
  return { distDir: dir === undefined ? defaultDistDir() : resolve(dir) };
}
