/**
 * An API server with its outbox relay running (so `GET /api/v1/events` carries every write), the
 * console's sign-in against a real oidc-provider, and a front the test can cut: it ends the open
 * event streams and refuses requests until it is restored, as a dropped network or a load
 * balancer restart would.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildApp, loadConfig } from '@gsp/api-server';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  freshSchema,
  JWT_SECRET,
  PLATFORM_ADMIN,
  startProvider,
} from '@gsp/api-server/testing';
import type { ProviderOptions } from '@gsp/api-server/testing';
import { DIST_DIR } from './browser.js';

type Tap = { teardown(fn: () => unknown): void };

export const PLATFORM_ID = 'gsp-test';

export interface LiveStack {
  app: FastifyInstance;
  issuer: string;
  /** CONSOLE_PUBLIC_URL, through the front. */
  consoleUrl: string;
  /** Ends every open event stream and answers 503 to everything until `restore`. */
  cut(): void;
  restore(): void;
}

/**
 * `env`: more API server variables (such as PROXY_TUNNEL_PUBLIC_URL), over the stack's own;
 * `provider`: what the identity provider says of its users (their names).
 */
export async function startLiveStack(
  t: Tap,
  env: Record<string, string> = {},
  provider: ProviderOptions = {},
): Promise<LiveStack> {
  let upstreamUrl = '';
  let cut = false;
  const streams = new Set<ServerResponse>();
  const front = createServer((req, res) => {
    if (cut) {
      res.statusCode = 503;
      return res.end();
    }
    const upstream = httpRequest(
      `${upstreamUrl}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        if ((up.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          streams.add(res);
          res.on('close', () => streams.delete(res));
        }
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  front.on('connection', (socket) => t.teardown(() => socket.destroy()));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => front.close(() => resolve())));
  const consoleUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/console/`;

  const issuer = await startProvider(t, () => `${consoleUrl}auth/callback`, provider);
  const { url: databaseUrl } = await freshSchema(t);
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: JWT_SECRET,
      AUTH_OIDC_ISSUER_URL: issuer,
      AUTH_OIDC_AUDIENCE: 'gsp-api',
      PLATFORM_ADMINS: `${PLATFORM_ADMIN},${issuer}#root`,
      PLATFORM_ID,
      CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
      CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      CONSOLE_PUBLIC_URL: consoleUrl,
      CONSOLE_DIST_DIR: DIST_DIR,
      ...env,
    }),
    false,
  );
  t.teardown(() => app.close());
  upstreamUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    issuer,
    consoleUrl,
    cut: () => {
      cut = true;
      for (const res of streams) res.destroy();
    },
    restore: () => {
      cut = false;
    },
  };
}

/** Signs in on the open console page through oidc-provider's login and consent pages. */
export async function signInAs(page: Page, login: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
  await page.locator('[data-live="live"]').waitFor({ state: 'attached' });
}
