/**
 * `npm start`: runs every service of the platform locally, wired together, on embedded
 * defaults (embedded PostgreSQL; kube-lite once it exists), then prints URLs and development
 * credentials. Each service is still an ordinary process configured only by environment.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { startEmbeddedPostgres } from '../services/api-server/src/db/embedded.js';
import { DEFAULT_JWT_AUDIENCE } from '../services/api-server/src/config.js';

const root = resolve(import.meta.dirname, '..');
const dataDir = join(root, '.data');
mkdirSync(dataDir, { recursive: true });

function persistentSecret(name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

const jwtSecret = process.env.AUTH_JWT_SECRET ?? persistentSecret('dev-jwt-secret');
const jwtAudience = process.env.AUTH_JWT_AUDIENCE ?? DEFAULT_JWT_AUDIENCE;
const devAdmin = 'dev-admin';
const apiPort = process.env.API_SERVER_PORT ?? '8081';
const apiUrl = `http://127.0.0.1:${apiPort}`;
const kubePort = process.env.KUBE_LITE_PORT ?? '6443';
const kubeDir = join(dataDir, 'kube');

const children: ChildProcess[] = [];

function startService(name: string, env: Record<string, string>, entry = join(root, 'services', name, 'src', 'server.ts'), args: string[] = []): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', entry, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    let buffered = '';
    stream?.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!shuttingDown) {
      console.error(`[dev] ${name} exited (${signal ?? code}); stopping the rest`);
      shutdown(1);
    }
  });
  children.push(child);
  return child;
}

let shuttingDown = false;
function shutdown(code: number): void {
  if (shuttingDown) return;
  shuttingDown = true;
  for (const child of children) child.kill('SIGTERM');
  const exited = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r))));
  void Promise.all(exited)
    .then(() => embeddedDb?.stop())
    .finally(() => process.exit(code));
  setTimeout(() => process.exit(code), 15_000).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function waitReady(url: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// One database for the API server and the cluster proxy: the embedded one unless configured.
const embeddedDb = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(join(dataDir, 'api-server'));
const databaseUrl = process.env.DATABASE_URL ?? embeddedDb!.url;

// The cluster behind the local platform: kube-lite, unless a real cluster is configured.
const kubeconfig = process.env.KUBECONFIG ?? join(kubeDir, 'kubeconfig');
if (!process.env.KUBECONFIG) {
  startService('kube-lite', {}, join(root, 'packages', 'kube-lite', 'src', 'cli.ts'), ['--port', kubePort, '--data-dir', kubeDir]);
  await waitReady(`http://127.0.0.1:${kubePort}/readyz`, 60_000);
}

// The control plane needs its cluster at start; a development admin signs in with Basic.
const controlPlanePort = process.env.CONTROL_PLANE_PORT ?? '8080';
const controlPlaneUrl = `http://127.0.0.1:${controlPlanePort}`;
const basicPassword = persistentSecret('dev-basic-password');
startService('control-plane', {
  PORT: controlPlanePort,
  METRICS_PORT: '9091',
  HOST: '127.0.0.1',
  KUBECONFIG: kubeconfig,
  AUTH_MODE: process.env.AUTH_MODE ?? 'basic,apikey',
  AUTH_BASIC_USER: 'admin',
  AUTH_BASIC_PASSWORD: basicPassword,
  AUTH_BASIC_ROLE: 'admin',
});

startService('api-server', {
  PORT: apiPort,
  AUTH_JWT_SECRET: jwtSecret,
  AUTH_JWT_AUDIENCE: jwtAudience,
  DATABASE_URL: databaseUrl,
  PROXY_PUBLIC_URL: 'https://127.0.0.1:8443',
  // The local proxy has a self-signed certificate.
  PROXY_INSECURE_SKIP_TLS_VERIFY: 'true',
  PLATFORM_ADMINS: [process.env.PLATFORM_ADMINS, devAdmin].filter(Boolean).join(','),
  DATA_DIR: process.env.DATA_DIR ?? join(dataDir, 'api-server'),
});

try {
  await waitReady(`${apiUrl}/readyz`, 60_000);
  await waitReady(`${controlPlaneUrl}/readyz`, 60_000);
} catch (err) {
  console.error(`[dev] ${(err as Error).message}`);
  shutdown(1);
}

const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject(devAdmin)
  .setAudience(jwtAudience)
  .setIssuedAt()
  .setExpirationTime('12h')
  .sign(new TextEncoder().encode(jwtSecret));

// A development tenant and cluster whose agent runs here against kube-lite.
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
};
await api('PUT', `/api/v1/tenants/dev/members/${devAdmin}`, { role: 'admin' });
const agentFile = join(dataDir, 'dev-agent.json');
const clusters = ((await api('GET', '/api/v1/tenants/dev/clusters'))?.clusters ?? []) as { id: string; name: string }[];
let agent = existsSync(agentFile) ? (JSON.parse(readFileSync(agentFile, 'utf8')) as { id: string; agentToken: string }) : undefined;
if (!agent || !clusters.some((c) => c.id === agent!.id)) {
  // The token is shown once at registration: without it, register the cluster anew.
  for (const c of clusters.filter((c) => c.name === 'local')) await api('DELETE', `/api/v1/tenants/dev/clusters/${c.id}`);
  const created = (await api('POST', '/api/v1/tenants/dev/clusters', { name: 'local' })) as { id: string; agentToken: string };
  agent = { id: created.id, agentToken: created.agentToken };
  writeFileSync(agentFile, JSON.stringify(agent), { mode: 0o600 });
}
// Without Redis the proxy learns of a switch change when its cache expires: keep that short here.
const proxyTtl = process.env.SERVICE_CACHE_FLAGS_TTL ?? (process.env.REDIS_URL ? '10s' : '1s');
startService('cluster-proxy', { DATABASE_URL: databaseUrl, API_SERVER_URL: apiUrl, PORT: '8443', TUNNEL_PORT: '8444', METRICS_PORT: '9090', SERVICE_CACHE_FLAGS_TTL: proxyTtl });
startService('tunnel-agent', {
  PROXY_TUNNEL_URL: 'http://127.0.0.1:8444',
  CLUSTER_ID: agent.id,
  AGENT_TOKEN: agent.agentToken,
  KUBE_API_URL: `http://127.0.0.1:${kubePort}`,
  PORT: '8090',
  HOST: '127.0.0.1',
});
try {
  await waitReady('http://127.0.0.1:8090/readyz', 60_000);
} catch (err) {
  console.error(`[dev] ${(err as Error).message}`);
  shutdown(1);
}

console.log(`
================ GSP platform, local development ================
api-server   ${apiUrl}  (OpenAPI: ${apiUrl}/openapi.json, metrics: ${apiUrl}/metrics)
database     ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${join(dataDir, 'api-server')}`}
redis        ${process.env.REDIS_URL ? 'REDIS_URL' : `none: the proxy sees a switch change within its ${proxyTtl} cache TTL (set REDIS_URL for milliseconds)`}
control-plane ${controlPlaneUrl}  (Basic admin:${basicPassword}; try: curl -u admin:${basicPassword} ${controlPlaneUrl}/api/v1/session; metrics http://127.0.0.1:9091/metrics)
proxy        https://127.0.0.1:8443 (kubectl), tunnel :8444, metrics http://127.0.0.1:9090/metrics, agent http://127.0.0.1:8090/readyz
cluster      ${process.env.KUBECONFIG ? `KUBECONFIG=${kubeconfig}` : `kube-lite http://127.0.0.1:${kubePort} (kubectl --kubeconfig ${kubeconfig} get namespaces)`}

Development platform-admin token (subject "${devAdmin}", audience "${jwtAudience}", expires in 12 hours;
restart for a new one; the secret is in .data/dev-jwt-secret):
  export TOKEN=${token}

Turn kubectl access off for the whole platform, then back on:
  curl -s -X PUT ${apiUrl}/api/v1/platform/feature-flags/cli_access.enabled -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"value": false}'
  curl -s -X DELETE ${apiUrl}/api/v1/platform/feature-flags/cli_access.enabled -H "Authorization: Bearer $TOKEN"
kubectl through the cluster proxy and the tunnel agent (tenant "dev", cluster "local" = kube-lite):
  curl -s ${apiUrl}/api/v1/tenants/dev/clusters/${agent.id}/kubeconfig -H "Authorization: Bearer $TOKEN" > .data/dev-kubeconfig
  kubectl --kubeconfig .data/dev-kubeconfig get namespaces
Press Ctrl-C to stop everything.
=================================================================
`);
