/**
 * The console's sign-in end to end, over real HTTP: a real OpenID provider (oidc-provider with its
 * development login and consent pages), API-server replicas on one schema behind a front that
 * stands for the load balancer at CONSOLE_PUBLIC_URL, and a browser's cookie handling with fetch.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
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

/** oidc-provider on a socket, its only client the console (confidential, PKCE required). */
export async function startProvider(
  t: Tap,
  redirectUri: () => string,
  { claims = () => ({}), idTokenClaims = false }: ProviderOptions = {},
): Promise<string> {
  const handler: { provider?: Provider } = {};
  const server = createServer((req, res) => (handler.provider as Provider).callback()(req, res));
  const issuer = await listen(server, t);
  handler.provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri()],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    ttl: { IdToken: ID_TOKEN_TTL_SECONDS, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600 },
    cookies: { keys: ['cookie-key-for-tests'] },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] },
    ...(idTokenClaims ? { features: { userinfo: { enabled: false } } } : {}),
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, ...claims(sub) }) }),
  });
  return issuer;
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

/** Whether a request to `pathname` carries a cookie of `path` (RFC 6265 5.1.4). */
const pathMatches = (pathname: string, path: string): boolean =>
  pathname === path || (pathname.startsWith(path) && (path.endsWith('/') || pathname[path.length] === '/'));

/** A browser's cookie jar over fetch (by host and port, and by Path), following no redirect by itself. */
export class Browser {
  readonly cookies = new Map<string, Map<string, { value: string; path: string }>>();
  /** Every Set-Cookie header received, in order, with the URL that sent it. */
  readonly setCookies: { url: string; value: string }[] = [];

  /** The Cookie header a browser would send to `url`. */
  cookieHeader(url: string): string {
    const { host, pathname } = new URL(url);
    const jar = this.cookies.get(host) ?? new Map<string, { value: string; path: string }>();
    return [...jar]
      .filter(([, c]) => pathMatches(pathname, c.path))
      .map(([k, c]) => `${k}=${c.value}`)
      .join('; ');
  }

  cookie(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name)?.value;
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie !== '' && !headers.has('cookie')) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    const host = new URL(url).host;
    for (const value of res.headers.getSetCookie()) {
      this.setCookies.push({ url, value });
      const [pair = '', ...attributes] = value.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const path = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]?.trim()).find((p) => p !== undefined) ?? '/';
      const jar = this.cookies.get(host) ?? new Map<string, { value: string; path: string }>();
      this.cookies.set(host, jar);
      const gone = /;\s*max-age=0\b/i.test(value) || /;\s*expires=Thu, 01 Jan 1970/i.test(value);
      if (gone || pair.slice(eq + 1) === '') jar.delete(name);
      else jar.set(name, { value: pair.slice(eq + 1), path });
    }
    return res;
  }
}

/** The first form of an HTML page: where it posts and its hidden fields. */
function formOf(html: string, base: string): { action: string; fields: URLSearchParams } | undefined {
  const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
  if (!form) return undefined;
  const fields = new URLSearchParams();
  for (const input of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi))
    fields.set(input[1]!, input[2]!);
  return { action: new URL(form[1]!, base).href, fields };
}

export interface SignInOutcome {
  /** Where the sign-in finally sent the browser (the console, or the callback's error). */
  finalUrl: string;
  /** The last response: a redirect into the console, or the callback's problem. */
  response: Response;
}

/**
 * Signs in as a user would: opens `start` (the console's login URL), follows redirects, and fills
 * the provider's login form (`login`, any password) and consent form; `deny` aborts at consent.
 * Stops at the first response of the API server that is not a redirect to the provider.
 */
export async function signIn(
  browser: Browser,
  stack: ConsoleStack,
  login: string,
  opts: { start?: string; deny?: boolean } = {},
): Promise<SignInOutcome> {
  let url = opts.start ?? `${stack.publicUrl}auth/login`;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await browser.fetch(url, init);
    const fromApi = new URL(url).origin === stack.front;
    const location = res.headers.get('location');
    const toProvider = location !== null && new URL(location, url).origin === stack.issuer;
    if (fromApi && !toProvider) return { finalUrl: url, response: res };
    if (location !== null && res.status >= 300 && res.status < 400) {
      url = new URL(location, url).href;
      init = {};
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
    if (opts.deny && html.includes('name="prompt" value="consent"')) {
      const abort = /href="([^"]*\/abort)"/.exec(html);
      if (!abort) throw new Error('no abort link on the consent page');
      url = new URL(abort[1]!, url).href;
      init = {};
      continue;
    }
    const form = formOf(html, url);
    if (!form) throw new Error(`no form at ${url}: ${html.slice(0, 300)}`);
    if (form.fields.get('prompt') === 'login') {
      form.fields.set('login', login);
      form.fields.set('password', 'any password');
    }
    url = form.action;
    init = {
      method: 'POST',
      body: form.fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error('the sign-in did not finish in 20 steps');
}
