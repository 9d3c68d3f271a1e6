import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { secureBrowserPage, serveBuiltApp } from '@gsp/service-kit/browser-app';
import fp from 'fastify-plugin';
import type { ApiServerConfig } from '../config/index.js';
import { ServiceUnavailable } from '../errors.js';

export const NOT_BUILT_MESSAGE =
  'the web console is not built: run `npm run build -w packages/web-console` ' +
  '(or set CONSOLE_DIST_DIR to a built console) and restart the API server';

/** `/console`, and every path and query under `/console/`: what the console's pages and its sign-in answer. */
const CONSOLE_PATH = /^\/console(?:[/?]|$)/;

/**
 * The browser-app headers (CSP, `nosniff`, `Referrer-Policy`, `Cross-Origin-Opener-Policy`) on
 * every answer under `/console/`: the built files, the sign-in routes, their errors and the 404s
 * alike. One root hook, added before any other, so that no route of the prefix goes without them
 * and no earlier hook's refusal does either. Not async: it runs for every request.
 */
export const secureConsoleAnswers: onRequestHookHandler = (request, reply, done) => {
  if (CONSOLE_PATH.test(request.url)) secureBrowserPage(reply);
  done();
};

async function serve(app: FastifyInstance, { distDir }: { distDir: string | undefined }): Promise<void> {
  // The console is a public page: its scripts find out who is signed in.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, public: true };
  });
  await serveBuiltApp(app, {
    path: '/console/',
    distDir,
    notBuilt: () => new ServiceUnavailable(NOT_BUILT_MESSAGE),
  });
}

/**
 * The built web console under `/console/` (its headers: `secureConsoleAnswers`); a 503 naming the fix when not
 * built.
 */
export default fp<{ config: ApiServerConfig }>(
  async (app, { config }) => {
    // Encapsulated: the hooks above apply to the console's routes only.
    await app.register(serve, { distDir: config.consoleStatic.distDir });
  },
  { name: 'console-bff-static' },
);
