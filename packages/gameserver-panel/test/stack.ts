/**
 * The harness every panel test uses: a real control plane (buildApp + loadConfig) on kube-lite with
 * Redis (a fresh key prefix), Basic, API keys and OIDC sign-in against a real oidc-provider with its
 * login and consent pages, the panel's PANEL_* settings, a roles file with a role limited to one
 * namespace, and profiles stored. The browser signs in through the page as a person would.
 */
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { buildApp, loadConfig } from '@gsp/control-plane';
import { AuditCapture, BASIC_ADMIN, redisPrefix, startKube, TEST_REDIS_URL } from '@gsp/control-plane/testing';
import type { KubeLite } from '@gsp/kube-lite';
import { assertBuilt } from '@gsp/test-kit/browser';
import type { Tap } from '@gsp/test-kit/browser';
import { startOidcProvider } from '@gsp/test-kit/oidc';

export { BASIC_ADMIN };
export { until } from '@gsp/control-plane/testing';

/** The panel's build, which root `npm test`'s pretest makes. */
export const DIST_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist') + '/';
/** Where tests write screenshots (gitignored). */
export const ARTEFACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-artefacts');

export const ADMIN_USER = 'root';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const OIDC_CLIENT_ID = 'gsp-panel';
const OIDC_CLIENT_SECRET = 'panel-secret-for-tests';

/** The namespaces the stack makes; `games` is the one the limited role may see. */
export const NAMESPACES = ['games', 'other'] as const;
/** A custom role that sees and manages game servers in `games` only. */
export const LIMITED_ROLE = 'games-admin';

const ROLES_YAML = `roles:
  ${LIMITED_ROLE}:
    permissions:
      - {resource: session, verbs: [get, list]}
      - {resource: profiles, verbs: [get, list]}
      - {resource: gameservers, verbs: [get, list, create, delete, execute], namespaces: [games]}
      - {resource: snapshots, verbs: [get, list, create], namespaces: [games]}
      - {resource: logs, verbs: [get, list], namespaces: [games]}
      - {resource: console, verbs: [execute], namespaces: [games]}
`;

/** The profiles stored: `arena` with player tracking and an action, `lobby` with the least a profile holds. */
export const PROFILES: Record<string, object> = {
  arena: {
    description: 'Team deathmatch',
    image: 'example/arena:1.0',
    ports: [{ name: 'game', containerPort: 7777 }],
    players: { initialCapacity: 16 },
    actions: { 'say-hello': { command: ['echo', 'hello'], timeoutSeconds: 5, description: 'Says hello.' } },
  },
  lobby: { image: 'example/lobby:1.0', ports: [{ name: 'game', containerPort: 7000 }] },
};

export interface PanelStack {
  app: FastifyInstance;
  kube: KubeLite;
  /** `http://127.0.0.1:<port>/panel/` (PANEL_PUBLIC_URL), with the prefix in front when there is one. */
  panelUrl: string;
  /** The panel's origin, `http://127.0.0.1:<port>` (the proxy's, with a prefix). */
  origin: string;
  issuer: string;
  audit: AuditCapture;
  /** Creates an API key with `role` (as the Basic admin) and answers its value. */
  createApiKey(role: string, name?: string): Promise<string>;
  /** Revokes the API key `name` (as the Basic admin). */
  revokeApiKey(name: string): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The test OpenID provider (oidc-provider with its development login and consent pages); its only
 * client is the panel. The login is the subject; a login named like a role (`admin`, `operator`,
 * `viewer`, or the limited role) carries it in the `roles` claim of the ID token, which
 * AUTH_OIDC_ROLE_MAPPING maps.
 */
async function startProvider(t: Tap, redirectUri: string): Promise<string> {
  const provider = await startOidcProvider(t, {
    clients: [{ id: OIDC_CLIENT_ID, secret: OIDC_CLIENT_SECRET, redirectUri }],
    claims: { openid: ['sub', 'roles'], profile: ['name', 'preferred_username'], email: ['email'] },
    idTokenClaims: true,
    account: (sub) => ({ preferred_username: sub, roles: [sub.replace(/-.*$/, '')] }),
  });
  return provider.issuer;
}

async function createNamespaces(kube: KubeLite): Promise<void> {
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  for (const name of NAMESPACES) await core.createNamespace({ body: { metadata: { name } } });
}

async function putProfiles(app: FastifyInstance): Promise<void> {
  for (const [name, profile] of Object.entries(PROFILES)) {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/profiles/${name}`,
      headers: BASIC_ADMIN,
      payload: profile,
    });
    if (res.statusCode !== 201) throw new Error(`profile ${name}: ${res.statusCode} ${res.body}`);
  }
}

/**
 * A proxy on a free port that serves `prefix` by forwarding to the control plane without it (plain
 * requests, event streams and WebSocket upgrades), as an ingress with a path rewrite would.
 * Answers its public base URL, `http://127.0.0.1:<port><prefix>`.
 */
async function startFront(t: Tap, prefix: string, target: () => number): Promise<string> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) return void res.writeHead(404).end();
    const options = { host: '127.0.0.1', port: target(), method: req.method, path: url.slice(prefix.length) };
    const upstream = httpRequest({ ...options, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${prefix}/`)) return void socket.destroy();
    const upstream = connect(target(), '127.0.0.1', () => {
      const lines = [`${req.method} ${url.slice(prefix.length)} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => t.teardown(() => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
}

/** The control plane's variables for the stack (before the test's own). */
function stackEnv(kube: KubeLite, issuer: string, panelUrl: string, rolesFile: string): Record<string, string> {
  return {
    KUBECONFIG: kube.kubeconfigPath,
    POD_NAMESPACE: 'default',
    AUTH_MODE: 'oidc,basic,apikey',
    AUTH_BASIC_USER: ADMIN_USER,
    AUTH_BASIC_PASSWORD: ADMIN_PASSWORD,
    AUTH_BASIC_ROLE: 'admin',
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_CLIENT_ID: OIDC_CLIENT_ID,
    AUTH_OIDC_ROLE_MAPPING: `admin=admin,operator=operator,viewer=viewer,${LIMITED_ROLE}=${LIMITED_ROLE}`,
    RBAC_ROLES_FILE: rolesFile,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redisPrefix(),
    PANEL_DIST_DIR: DIST_DIR,
    PANEL_PUBLIC_URL: panelUrl,
    PANEL_OIDC_CLIENT_ID: OIDC_CLIENT_ID,
    PANEL_OIDC_CLIENT_SECRET: OIDC_CLIENT_SECRET,
  };
}

/**
 * The control plane serving the built panel; `env` overrides the stack's variables. With
 * `prefix` (such as `/gsp`), the browser reaches it through a proxy that strips that prefix, and
 * `panelUrl` is `<front><prefix>/panel/`.
 */
export async function startPanelStack(
  t: Tap,
  env: Record<string, string> = {},
  { prefix, logs }: { prefix?: string; logs?: Writable } = {},
): Promise<PanelStack> {
  assertBuilt(DIST_DIR, 'the game-server panel', 'packages/gameserver-panel');
  const kube = await startKube(t);
  await createNamespaces(kube);
  const port = await freePort();
  const base = prefix === undefined ? `http://127.0.0.1:${port}` : await startFront(t, prefix, () => port);
  const origin = new URL(base).origin;
  const panelUrl = `${base}/panel/`;
  const issuer = await startProvider(t, `${panelUrl}auth/callback`);
  const rolesDir = mkdtempSync(join(tmpdir(), 'panel-roles-'));
  writeFileSync(join(rolesDir, 'roles.yaml'), ROLES_YAML);
  const config = loadConfig(
    { ...stackEnv(kube, issuer, panelUrl, join(rolesDir, 'roles.yaml')), ...env },
    { serviceAccountNamespaceFile: '/nonexistent' },
  );
  const audit = new AuditCapture();
  const logger = logs === undefined ? false : { level: 'info', stream: logs };
  const app = await buildApp(config, { logger, auditStream: audit });
  t.teardown(() => app.close());
  await app.listen({ port, host: '127.0.0.1' });
  await putProfiles(app);
  return {
    app,
    kube,
    panelUrl,
    origin,
    issuer,
    audit,
    async createApiKey(role, name = `key-${role}-${Math.random().toString(36).slice(2, 8)}`) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/apikeys',
        headers: BASIC_ADMIN,
        payload: { name, role },
      });
      if (res.statusCode !== 201) throw new Error(`creating key ${name}: ${res.statusCode} ${res.body}`);
      return (res.json() as { key: string }).key;
    },
    async revokeApiKey(name) {
      const res = await app.inject({ method: 'DELETE', url: `/api/v1/apikeys/${name}`, headers: BASIC_ADMIN });
      if (res.statusCode !== 204) throw new Error(`revoking key ${name}: ${res.statusCode} ${res.body}`);
    },
  };
}

/**
 * Creates `count` game servers `<prefix>-<n>` in `namespace` straight in kube-lite (as kubectl
 * would), labelled `gsp.dev/profile` and `tier` (`gold` every tenth, else `basic`), in parallel batches.
 */
export async function seedServers(kube: KubeLite, namespace: string, count: number, prefix = 'gs'): Promise<void> {
  const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const create = (n: number) =>
    api.createNamespacedCustomObject({
      group: 'agones.dev',
      version: 'v1',
      namespace,
      plural: 'gameservers',
      body: {
        apiVersion: 'agones.dev/v1',
        kind: 'GameServer',
        metadata: {
          name: `${prefix}-${String(n).padStart(4, '0')}`,
          labels: { 'gsp.dev/profile': 'lobby', tier: n % 10 === 0 ? 'gold' : 'basic' },
        },
        spec: { ports: [{ name: 'game', containerPort: 7000, protocol: 'UDP' }] },
      },
    });
  for (let start = 0; start < count; start += 50) {
    const batch = [];
    for (let n = start; n < Math.min(count, start + 50); n++) batch.push(create(n));
    await Promise.all(batch);
  }
}

/** Waits until the panel shows its signed-in shell (the Sign out button). */
async function signedIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Signs in on the open panel page with the Basic form. */
export async function signInBasic(page: Page, user = ADMIN_USER, password = ADMIN_PASSWORD): Promise<void> {
  await page.getByLabel('Username', { exact: true }).fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await signedIn(page);
}

/** Signs in on the open panel page with an API key. */
export async function signInApiKey(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await signedIn(page);
}

/** Signs in on the open panel page through oidc-provider's login and consent pages as `login`. */
export async function signInOidc(page: Page, login: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
  await signedIn(page);
}
