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
  let alive = children.filter((c) => c.exitCode === null && c.signalCode === null).length;
  if (alive === 0) process.exit(code);
  for (const child of children) {
    child.once('exit', () => {
      alive -= 1;
      if (alive <= 0) process.exit(code);
    });
  }
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
  .setIssuedAt()
  .setExpirationTime('7d')
  .sign(new TextEncoder().encode(jwtSecret));

console.log(`
================ GSP platform, local development ================
api-server   ${apiUrl}  (OpenAPI: ${apiUrl}/openapi.json, metrics: ${apiUrl}/metrics)
database     ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${join(dataDir, 'api-server')}`}
redis        ${process.env.REDIS_URL ? 'REDIS_URL' : 'none (in-process invalidation; other processes converge within SERVICE_CACHE_FLAGS_TTL)'}
control-plane ${controlPlaneUrl}  (Basic admin:${basicPassword}; try: curl -u admin:${basicPassword} ${controlPlaneUrl}/api/v1/session)
cluster      ${process.env.KUBECONFIG ? `KUBECONFIG=${kubeconfig}` : `kube-lite http://127.0.0.1:${kubePort} (kubectl --kubeconfig ${kubeconfig} get namespaces)`}

Development platform-admin token (subject "${devAdmin}", valid 7 days; the secret is in .data/dev-jwt-secret):
  export TOKEN=${token}

Turn kubectl access off for the whole platform, then back on:
  curl -s -X PUT ${apiUrl}/api/v1/platform/feature-flags/cli_access.enabled -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"value": false}'
  curl -s -X DELETE ${apiUrl}/api/v1/platform/feature-flags/cli_access.enabled -H "Authorization: Bearer $TOKEN"
Press Ctrl-C to stop everything.
=================================================================
`);
