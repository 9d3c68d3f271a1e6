import type { FastifyInstance } from 'fastify';
import { secureBrowserPage, serveBuiltApp } from '@gsp/service-kit/browser-app';
import { ServiceUnavailable } from '../errors.js';

export const NOT_BUILT_MESSAGE =
  'the game-server panel is not built: run `npm run build -w packages/gameserver-panel` ' +
  '(or set PANEL_DIST_DIR to a built panel) and restart the control plane';

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
  app.addHook('onRequest', async (_request, reply) => secureBrowserPage(reply));
  await serveBuiltApp(app, {
    path: '/panel/',
    distDir,
    notBuilt: () => new ServiceUnavailable(NOT_BUILT_MESSAGE),
  });
}
