import type { Env } from '@gsp/service-kit';

/** The console's sign-in (OIDC authorization-code flow, server-side sessions). Filled in by issue 23. */
export type ConsoleAuthConfig = Record<string, never>;

export function readConsoleAuthConfig(_env: Env): ConsoleAuthConfig {
  return {};
}
