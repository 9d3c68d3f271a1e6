import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BROWSER_APP_CSP, HASHED_ASSET_CACHE } from '@gsp/platform-contract';
import { ServiceUnavailable } from '../errors.js';

export const NOT_BUILT_MESSAGE =
  'the game-server panel is not built: run `npm run build -w packages/gameserver-panel` (or set PANEL_DIST_DIR to a built panel) and restart the control plane';

function cacheControlFor(path: string): string {
  if (path.endsWith('.html')) return 'no-store';
  if (/[/\\]assets[/\\][^/\\]+$/.test(path)) return HASHED_ASSET_CACHE;
  return 'no-cache';
}

/** The headers of every `/panel/` answer, the page's own and its errors alike. */
export function securePanelReply(reply: FastifyReply): void {
  reply.header('content-security-policy', BROWSER_APP_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * The built panel under `/panel/`, public (its script asks `panel/auth/session` who is signed in)
 * and unaudited like the probes; a 503 naming the build command when it is not built. Register
 * encapsulated: the hooks apply to these routes only.
 */
export async function panelStatic(app: FastifyInstance, { distDir }: { distDir: string | undefined }): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, public: true, audit: false };
    route.schema = { ...route.schema, hide: true };
  });
  app.addHook('onRequest', async (_request, reply) => securePanelReply(reply));

  // Relative, so the redirect stays under whatever prefix a proxy put in front of us.
  app.get('/panel', (_request, reply) => reply.redirect('panel/', 308));

  if (distDir === undefined || !existsSync(join(distDir, 'index.html'))) {
    app.log.warn({ distDir: distDir ?? null }, NOT_BUILT_MESSAGE);
    const notBuilt = async () => {
      throw new ServiceUnavailable(NOT_BUILT_MESSAGE);
    };
    app.get('/panel/', notBuilt);
    app.get('/panel/*', notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root: distDir,
    prefix: '/panel/',
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders: (reply, path) => reply.header('cache-control', cacheControlFor(path)),
  });
}
