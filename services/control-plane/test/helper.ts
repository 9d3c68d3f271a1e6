import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { findKubectl, startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

type Tap = { teardown(fn: () => unknown): void };

export const ADMIN_USER = 'root';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const BASIC_ADMIN = {
  authorization: `Basic ${Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')}`,
};
/** The least a profile holds: an image and its game port. */
export const GAME_PROFILE = { image: 'example/game:1.0', ports: [{ name: 'game', containerPort: 7777 }] };
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** kube-lite on a free port for one test file. */
export async function startKube(t: Tap): Promise<KubeLite> {
  const kube = await startKubeLite({ port: 0, stepMs: 50 });
  t.teardown(() => kube.close());
  return kube;
}

/** Collects audit lines written by the app. */
export class AuditCapture extends Writable {
  readonly text: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text.push(chunk.toString());
    callback();
  }
  lines(): Record<string, unknown>[] {
    return this.text
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

/** Collects the application log (Fastify's request logs included) as text. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

export interface Built {
  app: FastifyInstance;
  audit: AuditCapture;
}

export interface BuildOptions {
  /** The application log; none unless a test reads it (with a LogCapture). */
  logger?: FastifyServerOptions['logger'];
}

/** The environment every test app starts from: Basic admin and API keys against `kube`. */
export function baseEnv(kube: KubeLite): Record<string, string> {
  return {
    KUBECONFIG: kube.kubeconfigPath,
    POD_NAMESPACE: 'default',
    AUTH_MODE: 'apikey,basic',
    AUTH_BASIC_USER: ADMIN_USER,
    AUTH_BASIC_PASSWORD: ADMIN_PASSWORD,
    AUTH_BASIC_ROLE: 'admin',
  };
}

/** A control plane over `kube` with `env` over baseEnv, closed at the end of the test; its audit lines captured. */
export async function build(
  t: Tap,
  kube: KubeLite,
  env: Record<string, string | undefined> = {},
  options: BuildOptions = {},
): Promise<Built> {
  const config = loadConfig({ ...baseEnv(kube), ...env }, { serviceAccountNamespaceFile: '/nonexistent' });
  const audit = new AuditCapture();
  const app = await buildApp(config, { logger: options.logger ?? false, auditStream: audit });
  t.teardown(() => app.close());
  await app.ready();
  return { app, audit };
}

/**
 * Listens on a free port of 127.0.0.1 (for what inject cannot do: streams, WebSockets); gives
 * `http://127.0.0.1:<port>`.
 */
export function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** A roles file (RBAC_ROLES_FILE) holding `yaml`, in a directory of its own. */
export function rolesFile(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cp-roles-')), 'roles.yaml');
  writeFileSync(file, yaml);
  return file;
}

/** Creates the namespace `games`, where the game-server tests run their servers. */
export async function createGamesNamespace(kube: KubeLite): Promise<void> {
  await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'games' } } });
}

/** Stores each profile (name -> document) through the API as the Basic admin. */
export async function putProfiles(app: FastifyInstance, profiles: Record<string, object>): Promise<void> {
  for (const [name, profile] of Object.entries(profiles)) {
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
 * A control plane (as `build` makes it) with `profiles` stored, over `kube` (by default a fresh
 * kube-lite) with the namespace `games`.
 */
export async function buildWithProfiles(
  t: Tap,
  profiles: Record<string, object>,
  options: BuildOptions & { env?: Record<string, string>; kube?: KubeLite } = {},
): Promise<Built & { kube: KubeLite }> {
  const kube = options.kube ?? (await startKube(t));
  await createGamesNamespace(kube);
  const built = await build(t, kube, options.env, options);
  await putProfiles(built.app, profiles);
  return { ...built, kube };
}

/** POST /api/v1/gameservers/<namespace> with `payload`, as the Basic admin. */
export function postGameServer(app: FastifyInstance, namespace: string, payload: object) {
  return app.inject({ method: 'POST', url: `/api/v1/gameservers/${namespace}`, headers: BASIC_ADMIN, payload });
}

/** POST .../games/<name>/actions/<action> with `args`, as the Basic admin unless `headers` say otherwise. */
export function postAction(
  app: FastifyInstance,
  name: string,
  action: string,
  args?: string[],
  headers: Record<string, string> = BASIC_ADMIN,
) {
  return app.inject({
    method: 'POST',
    url: `/api/v1/gameservers/games/${name}/actions/${action}`,
    headers,
    ...(args ? { payload: { args } } : {}),
  });
}

/** Creates game server games/<name> from `profile` through the API as the Basic admin, and waits until it is Ready. */
export async function readyServer(app: FastifyInstance, name: string, profile = 'arena'): Promise<void> {
  const res = await postGameServer(app, 'games', { profile, name });
  if (res.statusCode !== 201) throw new Error(`${name}: ${res.statusCode} ${res.body}`);
  await until(`${name} Ready`, async () => {
    const view = (await app.inject({ url: `/api/v1/gameservers/games/${name}`, headers: BASIC_ADMIN })).json();
    return (view as { state: string }).state === 'Ready';
  });
}

/** POST /api/v1/apikeys with `payload`, as the Basic admin unless `headers` say otherwise. */
export function postKey(app: FastifyInstance, payload: object, headers: Record<string, string> = BASIC_ADMIN) {
  return app.inject({ method: 'POST', url: '/api/v1/apikeys', headers, payload });
}

/** Creates a GameServer with kubectl's means (no profile, empty spec), as someone outside the control plane would. */
export async function createBareGameServer(kube: KubeLite, namespace: string, name: string): Promise<void> {
  await kube.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace,
    plural: 'gameservers',
    body: { apiVersion: 'agones.dev/v1', kind: 'GameServer', metadata: { name }, spec: {} },
  });
}

/** Creates an API key through the API as the Basic admin and returns its value. */
export async function createKey(app: FastifyInstance, name: string, role?: string): Promise<string> {
  const res = await postKey(app, { name, ...(role ? { role } : {}) });
  if (res.statusCode !== 201) throw new Error(`creating key ${name}: ${res.statusCode} ${res.body}`);
  return (res.json() as { key: string }).key;
}

export function redisPrefix(): string {
  return `t${randomBytes(5).toString('hex')}:`;
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 5000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Answer = { statusCode: number };

/**
 * Starts `hold`, a request that takes a game server's lock and keeps it, then polls `probe` until the
 * probe is refused with 409. The two race for the lock: should a probe hold it at the instant `hold`
 * asks, `hold` is the one refused (rightly) and asks again. Gives the refusal and the holder's answer.
 */
export async function refusedWhileHeld<A extends Answer, P extends Answer>(
  what: string,
  hold: () => Promise<A>,
  probe: () => Promise<P>,
): Promise<{ refused: P; held: Promise<A> }> {
  let held = hold();
  // Generous: on a busy machine (the whole suite, browsers beside) the holder can take seconds to
  // reach its lock. A holder that has already ended (refused, or its action over) is started again,
  // so the probe always races a live one.
  const refused = await until(
    what,
    async () => {
      const res = await probe();
      if (res.statusCode === 409) return res;
      const settled = await Promise.race([held, Promise.resolve(undefined)]);
      if (settled !== undefined) held = hold();
      return undefined;
    },
    15_000,
  );
  return { refused, held };
}

let kubectlPath: string | undefined;

export function kubectl(kube: KubeLite, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  kubectlPath ??= findKubectl({ searchPath: false });
  return new Promise((resolve, reject) => {
    execFile(
      kubectlPath as string,
      [
        '--kubeconfig',
        kube.kubeconfigPath,
        '--cache-dir',
        join(dirname(kube.kubeconfigPath), 'kubectl-cache'),
        ...args,
      ],
      { env: { ...process.env, HOME: process.env.HOME ?? '/tmp' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * A TCP relay in front of a dependency that a test can break the two ways networks break: `cut`
 * resets every connection and refuses new ones (a restart, a closed port); `stall` swallows the
 * bytes and keeps the connections open (a dead host, a partition), in both directions or only
 * the answers (the request arrives and is acted on, the reply is lost). `heal` mends it for the
 * bytes that come after.
 */
export interface Relay {
  host: string;
  port: number;
  cut(): void;
  stall(which?: 'both' | 'answers'): void;
  heal(): void;
}

export async function startRelay(t: Tap, target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  let state: 'open' | 'cut' | 'both' | 'answers' = 'open';
  const server = net.createServer((client) => {
    if (state === 'cut') return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const [from, to, answers] of [
      [client, upstream, false],
      [upstream, client, true],
    ] as const) {
      sockets.add(from);
      from.on('error', () => undefined);
      const swallowed = () => state === 'both' || (state === 'answers' && answers);
      from.on('close', () => {
        sockets.delete(from);
        // A stalled link passes no news of a closed connection either.
        if (!swallowed()) to.destroy();
      });
      from.on('data', (chunk: Buffer) => {
        if (!swallowed()) to.write(chunk);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    cut() {
      state = 'cut';
      for (const s of sockets) s.destroy();
    },
    stall(which = 'both') {
      state = which;
    },
    heal() {
      state = 'open';
    },
  };
}

/** A kubeconfig for `kube` that reaches it through `relay`. */
export function relayedKubeconfig(t: Tap, kube: KubeLite, relay: Relay): string {
  const dir = mkdtempSync(join(tmpdir(), 'cp-relayed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    readFileSync(kube.kubeconfigPath, 'utf8').replaceAll(kube.url, `http://${relay.host}:${relay.port}`),
  );
  return file;
}

/**
 * Creates the Secret of key `name` with kubectl, as the API does once the key was shown, or
 * (`pending`) as a create whose answer was lost leaves it.
 */
export async function createKeySecret(
  kube: KubeLite,
  name: string,
  value: string,
  options: { pending?: boolean; role?: string } = {},
): Promise<void> {
  const meta = {
    name,
    role: options.role ?? 'viewer',
    userId: 'root',
    username: 'root',
    createdAt: new Date().toISOString(),
  };
  const annotations = options.pending ? { 'gsp.dev/apikey-pending': 'true' } : {};
  const dir = mkdtempSync(join(tmpdir(), 'cp-key-secret-'));
  const file = join(dir, 'secret.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: `gsp-apikey-${name}`, labels: { 'gsp.dev/apikey': 'true' }, annotations },
      data: {
        key: Buffer.from(value).toString('base64'),
        metadata: Buffer.from(JSON.stringify(meta)).toString('base64'),
      },
    }),
  );
  try {
    const run = await kubectl(kube, ['-n', 'default', 'create', '-f', file]);
    if (run.code !== 0) throw new Error(`kubectl create secret gsp-apikey-${name}: ${run.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
