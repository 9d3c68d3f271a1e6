import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The Content-Security-Policy of every browser app a service serves (the API server's web
 * console, the control plane's game-server panel): the page may load its own script and style
 * files and call its own origin, nothing else: no inline script or style, no framing, no `<base>`.
 * Forms post only to this origin.
 */
export const BROWSER_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Vite names every file under assets/ after a hash of its content: a changed file gets a new name. */
export const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The headers of every answer of a browser app (the web console, the game-server panel), its pages and errors
 * alike.
 */
export function secureBrowserPage(reply: FastifyReply): void {
  reply.header('content-security-policy', BROWSER_APP_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * The `cache-control` of a built file: HTML is never kept (it names the current assets), hashed
 * assets are kept for good, anything else is revalidated.
 */
export function cacheControlFor(path: string): string {
  if (path.endsWith('.html')) return 'no-store';
  if (/[/\\]assets[/\\][^/\\]+$/.test(path)) return HASHED_ASSET_CACHE;
  return 'no-cache';
}

export interface BuiltAppOptions {
  /** Where the app is served, with both slashes: `/console/` (not `prefix`, which `register` would take as its own). */
  path: string;
  /** The build's folder; undefined or without `index.html` means not built. */
  distDir: string | undefined;
  /** What a request is answered while the app is not built: the service's 503, naming the fix. */
  notBuilt: () => Error;
}

/**
 * A built browser app under `path`: the bare path redirects to it, `index.html` and the assets
 * with `cacheControlFor`; every route is answered by `notBuilt` (and a warning logged) when there
 * is no build. Hidden from OpenAPI. The caller adds its own hooks (headers, route config).
 */
export async function serveBuiltApp(app: FastifyInstance, options: BuiltAppOptions): Promise<void> {
  const { path: prefix, distDir } = options;
  if (!/^\/(?:[a-z0-9-]+\/)+$/.test(prefix)) throw new Error(`path must be a path with both slashes: ${prefix}`);
  const bare = prefix.slice(0, -1);
  // Relative, so the redirect stays under whatever prefix a proxy put in front of us.
  const relative = `${bare.slice(bare.lastIndexOf('/') + 1)}/`;
  app.get(bare, { schema: { hide: true } }, (_request, reply) => reply.redirect(relative, 308));

  if (distDir === undefined || !existsSync(join(distDir, 'index.html'))) {
    const error = options.notBuilt();
    app.log.warn({ distDir: distDir ?? null }, error.message);
    const notBuilt = async () => {
      throw options.notBuilt();
    };
    app.get(prefix, { schema: { hide: true } }, notBuilt);
    app.get(`${prefix}*`, { schema: { hide: true } }, notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root: distDir,
    prefix,
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders: (reply, path) => reply.header('cache-control', cacheControlFor(path)),
  });
}
