/**
 * The console's sign-in end to end, over real HTTP: the test OpenID provider (oidc-provider with its
 * development login and consent pages), API-server replicas on one schema behind a front that
 * stands for the load balancer at CONSOLE_PUBLIC_URL, and a browser's cookie handling with fetch.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { signIn as signInWith, startOidcProvider } from '@gsp/test-kit/oidc';
import type { Browser, SignInOutcome } from '@gsp/test-kit/oidc';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { freshSchema, JWT_SECRET, PLATFORM_ADMIN } from './helper.js';

type Tap = { teardown(fn: () => unknown): void };

export const CLIENT_ID = 'gsp-console';
export const CLIENT_SECRET = 'console-secret-for-tests';
/** A distinctive ID-token lifetime, so a test can tell the session ends with the ID token. */
export const ID_TOKEN_TTL_SECONDS = 1234;

async function listen(server: ReturnType<typeof createServer>, t: Tap): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface ProviderOptions {
  /** The profile claims of a login (`name`, `email`, `preferred_username`); none by default. */
  claims?: (login: string) => Record<string, unknown>;
  /**
   * The claims in the ID token, and no user info endpoint. By default, as oidc-provider does, they
   * are kept out of ID tokens of the code flow and answered by the user info endpoint only.
   */
  idTokenClaims?: boolean;
}

/** The test provider with the console as its only client (confidential, PKCE required); resolves with its issuer. */
export async function startProvider(
  t: Tap,
  redirectUri: () => string,
  { claims, idTokenClaims = false }: ProviderOptions = {},
): Promise<string> {
  const provider = await startOidcProvider(t, {
    clients: [{ id: CLIENT_ID, secret: CLIENT_SECRET, redirectUri: redirectUri() }],
    idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS,
    ...(claims ? { account: claims } : {}),
    idTokenClaims,
  });
  return provider.issuer;
}

/** The load balancer in front of the replicas: forwards every request to the replica `to` names. */
export async function startFront(t: Tap, to: () => string, prefix = ''): Promise<string> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    // A path prefix the proxy strips, as an ingress with a rewrite would.
    if (!url.startsWith(`${prefix}/`)) {
      res.statusCode = 404;
      return res.end();
    }
    const upstream = httpRequest(
      `${to()}${url.slice(prefix.length)}`,
      { method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => t.teardown(() => socket.destroy()));
  return listen(server, t);
}

export interface ConsoleStack {
  issuer: string;
  /** CONSOLE_PUBLIC_URL: the front's `<prefix>/console/`. */
  publicUrl: string;
  front: string;
  replicas: { app: FastifyInstance; url: string }[];
  /** Sends the front's requests to replica `i` from now on. */
  route(i: number): void;
  databaseUrl: string;
}

export interface ConsoleStackOptions {
  replicas?: number;
  prefix?: string;
  provider?: ProviderOptions;
  /** More of the replicas' environment (`CONSOLE_SIGN_IN_LIMIT`, ...). */
  env?: Record<string, string>;
}

/** The provider, `replicas` API servers on one schema, and the front; `PLATFORM_ADMINS` includes `<issuer>#root`. */
export async function startConsoleStack(
  t: Tap,
  { replicas = 2, prefix = '', provider = {}, env: more = {} }: ConsoleStackOptions = {},
): Promise<ConsoleStack> {
  let target = '';
  const front = await startFront(t, () => target, prefix);
  const publicUrl = `${front}${prefix}/console/`;
  const issuer = await startProvider(t, () => `${publicUrl}auth/callback`, provider);
  const { url: databaseUrl } = await freshSchema(t);
  const env = {
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: JWT_SECRET,
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_AUDIENCE: 'gsp-api',
    PLATFORM_ADMINS: `${PLATFORM_ADMIN},${issuer}#root`,
    CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    CONSOLE_PUBLIC_URL: publicUrl,
    OUTBOX_RELAY_ENABLED: 'false',
    ...more,
  };
  const built: { app: FastifyInstance; url: string }[] = [];
  for (let i = 0; i < replicas; i++) {
    const app = await buildApp(loadConfig(env), false);
    t.teardown(() => app.close());
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    built.push({ app, url });
  }
  target = built[0]!.url;
  return {
    issuer,
    publicUrl,
    front,
    replicas: built,
    route: (i) => {
      target = built[i]!.url;
    },
    databaseUrl,
  };
}

/**
 * Signs in as a user would: opens `start` (the console's login URL), follows redirects, and fills
 * the provider's login form (`login`, any password) and consent form; `deny` aborts at consent.
 * Stops at the first response of the API server that is not a redirect to the provider.
 */
export function signIn(
  browser: Browser,
  stack: ConsoleStack,
  login: string,
  opts: { start?: string; deny?: boolean } = {},
): Promise<SignInOutcome> {
  return signInWith(browser, {
    start: opts.start ?? `${stack.publicUrl}auth/login`,
    app: stack.front,
    issuer: stack.issuer,
    login,
    ...(opts.deny ? { deny: true } : {}),
  });
}
