import type { Env } from '@gsp/service-kit';

/** How the built web console is served under `/console/`. Filled in by issue 23. */
export type ConsoleStaticConfig = Record<string, never>;

export function readConsoleStaticConfig(_env: Env): ConsoleStaticConfig {
  return {};
}
