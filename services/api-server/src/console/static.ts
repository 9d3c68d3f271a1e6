import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BROWSER_APP_CSP, HASHED_ASSET_CACHE } from '@gsp/platform-contract';
import fp from 'fastify-plugin';
import type { ApiServerConfig } from '../config.js';
import { ServiceUnavailable } from '../errors.js';

/**
 * The page may load its own script and style files and call its own origin, nothing else (the
 * platform's one policy for browser apps). Sign-in is a link to `/console/auth/login`, which
 * redirects to the issuer; sign-out is a `fetch`.
 */
export const CONSOLE_CSP = BROWSER_APP_CSP;

export const NOT_BUILT_MESSAGE =
  'the web console is not built: run `npm run build -w packages/web-console` (or set CONSOLE_DIST_DIR to a built console) and restart the API server';

const HTML_CACHE = 'no-store';
const ASSET_CACHE = HASHED_ASSET_CACHE;
const OTHER_CACHE = 'no-cache';

function cacheControlFor(path: string): string {
  if (path.endsWith('.html')) return HTML_CACHE;
  if (/[/\\]assets[/\\][^/\\]+$/.test(path)) return ASSET_CACHE;
  return OTHER_CACHE;
}

function secure(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

async function serve(app: FastifyInstance, { distDir }: { distDir: string | undefined }): Promise<void> {
  // The console is a public page: its scripts find out who is signed in.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, public: true };
  });
  app.addHook('onRequest', async (_request, reply) => secure(reply));

  // Relative, so the redirect stays under whatever prefix a proxy put in front of us.
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('console/', 308));

  if (distDir === undefined || !existsSync(join(distDir, 'index.html'))) {
    app.log.warn({ distDir: distDir ?? null }, NOT_BUILT_MESSAGE);
    const notBuilt = async () => {
      throw new ServiceUnavailable(NOT_BUILT_MESSAGE);
    };
    app.get('/console/', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root: distDir,
    prefix: '/console/',
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders: (reply, path) => reply.header('cache-control', cacheControlFor(path)),
  });
}

/** The built web console under `/console/`, with a strict CSP; a 503 naming the fix when it is not built. */
export default fp<{ config: ApiServerConfig }>(
  async (app, { config }) => {
    // Encapsulated: the hooks above apply to the console's routes only.
    await app.register(serve, { distDir: config.consoleStatic.distDir });
  },
  { name: 'console-static' },
);
