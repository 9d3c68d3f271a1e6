import type { FastifyInstance } from 'fastify';
import { secureBrowserPage, serveBuiltApp } from '@gsp/service-kit/browser-app';
import fp from 'fastify-plugin';
import type { ApiServerConfig } from '../config.js';
import { ServiceUnavailable } from '../errors.js';

export const NOT_BUILT_MESSAGE =
  'the web console is not built: run `npm run build -w packages/web-console` (or set CONSOLE_DIST_DIR to a built console) and restart the API server';

async function serve(app: FastifyInstance, { distDir }: { distDir: string | undefined }): Promise<void> {
  // The console is a public page: its scripts find out who is signed in.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, public: true };
  });
  app.addHook('onRequest', async (_request, reply) => secureBrowserPage(reply));
  await serveBuiltApp(app, {
    path: '/console/',
    distDir,
    notBuilt: () => new ServiceUnavailable(NOT_BUILT_MESSAGE),
  });
}

/** The built web console under `/console/`, with the platform's browser-app CSP; a 503 naming the fix when it is not built. */
export default fp<{ config: ApiServerConfig }>(
  async (app, { config }) => {
    // Encapsulated: the hooks above apply to the console's routes only.
    await app.register(serve, { distDir: config.consoleStatic.distDir });
  },
  { name: 'console-static' },
);
