/**
 * The images' trees, run. deploy/docker/smoke.sh replays the Dockerfiles (build stage, then each runtime stage's
 * COPY) and starts every service from its tree against kube-lite, PostgreSQL and Redis. Then each service runs
 * again from its tree as its Helm chart would run it: the environment the chart renders (the `full` values), the
 * pod's user, a read-only root with only the pod's emptyDir mounts writable, and the in-cluster addresses
 * (database, Redis, Kubernetes API, the other services) pointed at this machine's.
 *
 * As root here, permissions alone would not stop a write: the service runs in a mount namespace of its own
 * (`unshare --mount`) whose root is remounted read-only, each emptyDir a writable bind mount (at its own path, and
 * over it when that path exists here, as /tmp does; a variable naming it points at the bind), and it drops to the
 * pod's `runAsUser` with `setpriv`, as the kubelet would start it.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import { freshSchema, JWT_SECRET, redisPrefix, TEST_REDIS_URL, token, until } from '@gsp/api-server/testing';
import { dockerfilePath, readDockerfile } from './dockerfile.js';
import { containerEnv, deployments, helmIn, podSpec, root, template } from './render.js';
import type { Env, Manifest, PodSpec } from './render.js';
import { full, secrets } from './values.js';

/** npm ci, tsc -b of five projects and two page builds on two busy cores, then five services: bounded, generous. */
const SMOKE_DEADLINE_MS = 8 * 60_000;
/** Each service's start from its tree, and each wait for an answer. */
const START_DEADLINE_MS = 60_000;
t.setTimeout(SMOKE_DEADLINE_MS + 90_000);

const helm = helmIn();
t.teardown(() => helm.close());
const rendered: Record<string, Manifest[]> = {};
for (const chart of ['platform', 'control-plane', 'tunnel-agent'])
  rendered[chart] = await template(helm, chart, full[chart]!);

/** Where each service's chart puts it. */
const CHART: Record<string, string> = {
  'api-server': 'platform',
  'cluster-proxy': 'platform',
  'control-plane': 'control-plane',
  'tunnel-agent': 'tunnel-agent',
};

interface Pod {
  spec: PodSpec;
  container: PodSpec['containers'][number];
  docs: Manifest[];
}

function podOf(service: string): Pod {
  const docs = rendered[CHART[service]!]!;
  for (const deployment of deployments(docs)) {
    const spec = podSpec(deployment);
    const container = spec.containers.find((c) => c.name === service);
    if (container) return { spec, container, docs };
  }
  throw new Error(`chart ${CHART[service]} renders no container ${service}`);
}

/** The paths a pod may write: its emptyDir mounts. */
const writablePaths = (pod: Pod): string[] =>
  (pod.container.volumeMounts ?? [])
    .filter((mount) => pod.spec.volumes?.find((v) => v.name === mount.name)?.emptyDir !== undefined)
    .map((mount) => mount.mountPath);

// The work folder holds the trees the pods run from: it must not be under a path a pod mounts over (/tmp).
const mounted = Object.keys(CHART).flatMap((service) => writablePaths(podOf(service)));
const base = ['/var/tmp', tmpdir()].find((dir) => !mounted.some((path) => `${dir}/`.startsWith(`${path}/`)));
if (base === undefined) throw new Error(`no work folder outside the pods' mounts (${mounted.join(', ')})`);
const work = mkdtempSync(join(base, 'gsp-smoke-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
// The pods' user reads the trees and the files of their Secrets below it.
chmodSync(work, 0o755);

/** A process group of its own (smoke.sh and what it starts), stopped with the test whatever happened. */
function runSmoke(): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  const child = spawn('bash', [join(root, 'deploy', 'docker', 'smoke.sh')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // The working tree (what docker build would be given); on a clean checkout, as in CI, the same as HEAD.
      SMOKE_TREE: process.env.SMOKE_TREE ?? 'worktree',
      SMOKE_WORK: work,
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = (): void => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
  };
  const limit = setTimeout(stop, SMOKE_DEADLINE_MS);
  t.teardown(stop);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, output, ms: performance.now() - started });
    }),
  );
}

const smoke = runSmoke();

/** The checks smoke.sh must print `ok` for: the pages built, each /readyz, each page with its CSP. */
const SMOKE_CHECKS: [string, RegExp][] = [
  ['the web console is built', /^ok {3}build: npm run build -w packages\/web-console /],
  ['the game-server panel is built', /^ok {3}build: npm run build -w packages\/gameserver-panel /],
  ['kube-lite is ready', /^ok {3}kube-lite: https:\/\/127\.0\.0\.1:\d+\/readyz answers 200$/],
  ['the API server is ready', /^ok {3}api-server: http:\/\/127\.0\.0\.1:\d+\/readyz answers 200$/],
  [
    'the API server serves the web console',
    /^ok {3}api-server: http:\/\/127\.0\.0\.1:\d+\/console\/ answers 200 with Content-Security-Policy: /,
  ],
  ['the control plane is ready', /^ok {3}control-plane: http:\/\/127\.0\.0\.1:\d+\/readyz answers 200$/],
  [
    'the control plane serves the game-server panel',
    /^ok {3}control-plane: http:\/\/127\.0\.0\.1:\d+\/panel\/ answers 200 with Content-Security-Policy: /,
  ],
  ['the cluster proxy is ready', /^ok {3}cluster-proxy: https:\/\/127\.0\.0\.1:\d+\/readyz answers 200$/],
  [
    'the tunnel agent is ready (its tunnel is up)',
    /^ok {3}tunnel-agent: http:\/\/127\.0\.0\.1:\d+\/readyz answers 200$/,
  ],
];

t.test('smoke.sh builds each image as its Dockerfile does, and every service starts from its tree', async (t) => {
  const { code, output, ms } = await smoke;
  t.comment(`smoke.sh took ${(ms / 1000).toFixed(0)} s`);
  const lines = output.split('\n');
  t.equal(code, 0, 'smoke.sh exits 0', { output });
  t.same(
    lines.filter((line) => line.startsWith('FAIL')),
    [],
    'no check fails',
  );
  for (const [what, line] of SMOKE_CHECKS)
    t.ok(
      lines.some((l) => line.test(l)),
      what,
    );
});

/** A service process from its tree, and what it printed. */
interface Running {
  child: ChildProcess;
  /** The environment it runs with, paths mapped to this machine. */
  env: Env;
  output(): string;
  exited: Promise<void>;
}

const running: Running[] = [];
/** Each service asked to stop, and killed if it is still there after 15 s. */
async function stopAll(): Promise<void> {
  for (const { child } of running) child.kill('SIGTERM');
  await Promise.all(
    running.map(({ child, exited }) =>
      Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]).then(() => child.kill('SIGKILL')),
    ),
  );
}
t.teardown(stopAll);

/** `unshare` as root, mounts in a namespace of its own: what this test needs of the machine, or why it cannot. */
function isolationUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (a mount namespace, and setpriv to the pod user)';
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'mount', '-o', 'remount,bind,ro', '/']);
  return probe.status === 0 ? undefined : `unshare --mount cannot remount / read-only here: ${probe.stderr}`;
}

/** The shell run inside the namespace: bind mounts (`source target` pairs up to `--`), the root read-only, exec. */
const NAMESPACE_SCRIPT =
  'while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 126; shift 2; done; shift; ' +
  'mount -o remount,bind,ro / || exit 126; exec "$@"';

/**
 * Starts `service` from its image's tree as its pod would run it: the image's ENV under the rendered env, the
 * rendered env under `loopback` (this machine's addresses instead of the cluster's), the emptyDirs writable.
 */
function startPod(t: Test, service: string, loopback: Env, podSecrets = secrets): Running {
  const pod = podOf(service);
  const dir = join(work, 'pods', service);
  const env = containerEnv(pod.docs, pod.spec, pod.container, podSecrets, dir);
  const binds: string[] = [];
  for (const mountPath of writablePaths(pod)) {
    const target = join(dir, mountPath);
    // An emptyDir is created 0777: writable by whichever user the pod runs as.
    chmodSync(target, 0o777);
    binds.push(target, target);
    if (existsSync(mountPath)) binds.push(target, mountPath);
    // containerEnv points variables below a mount at its folder; a variable naming the mount itself too.
    for (const [name, value] of Object.entries(env)) if (value === mountPath) env[name] = target;
  }
  for (const name of Object.keys(loopback))
    if (!(name in env) && !IN_CLUSTER_STAND_INS.has(name))
      t.fail(`${service}: the chart no longer sets ${name}; the test points it at this machine`);
  const image = readDockerfile(dockerfilePath(service));
  const user = pod.spec.securityContext?.runAsUser;
  const group = pod.spec.securityContext?.runAsGroup;
  t.ok(typeof user === 'number' && user !== 0, `${service}: the pod runs as a non-root user (${String(user)})`);
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      NAMESPACE_SCRIPT,
      'sh',
      ...binds,
      '--',
      'setpriv',
      `--reuid=${String(user)}`,
      `--regid=${String(group ?? user)}`,
      '--clear-groups',
      '--no-new-privs',
      ...image.cmd,
    ],
    {
      cwd: join(work, 'image', service),
      env: {
        PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        HOME: join(work, 'home'),
        ...image.env,
        ...env,
        ...loopback,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = { child, env: { ...env, ...loopback }, output: () => output, exited };
  running.push(started);
  return started;
}

/** Variables the chart leaves unset because a pod has the in-cluster configuration; here they name kube-lite. */
const IN_CLUSTER_STAND_INS = new Set(['KUBECONFIG', 'KUBE_API_URL', 'KUBE_CA_FILE']);

/** What a service's JSON log says it listens on: Fastify's line, or the `url` and `tunnelUrl` of its own. */
function listening(output: string): { url: string; tunnelUrl?: string } | undefined {
  for (const line of output.split('\n')) {
    let entry: { msg?: string; url?: string; tunnelUrl?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // not a log line, or one still being written
    }
    const fastify = /^Server listening at (http:\/\/127\.0\.0\.1:\d+)$/.exec(entry.msg ?? '');
    if (fastify) return { url: fastify[1]! };
    if (entry.msg?.includes(' listening (') && entry.url) return { url: entry.url, tunnelUrl: entry.tunnelUrl };
  }
  return undefined;
}

/** Waits for `check`, failing at once if the service exits meanwhile; either way with what the service printed. */
async function whileRunning<T>(
  service: string,
  pod: Running,
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const exited = pod.exited.then(() => {
    throw new Error(`${service} exited (${pod.child.exitCode ?? pod.child.signalCode})`);
  });
  return Promise.race([until(`${service}: ${what}`, check, START_DEADLINE_MS, 100), exited]).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; its output:\n${pod.output()}`);
  });
}

/** GET `url`, trusting `ca` for https: its status and headers. */
function get(url: string, ca?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? https : http).get(url, { ca, timeout: 5000 }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    request.on('timeout', () => request.destroy(new Error(`${url}: no answer within 5 s`)));
    request.on('error', reject);
  });
}

/** The service listens and its /readyz answers 200. */
async function ready(
  t: Test,
  service: string,
  pod: Running,
  ca?: string,
): Promise<{ url: string; tunnelUrl?: string }> {
  const address = await whileRunning(service, pod, 'listening', () => listening(pod.output()));
  await whileRunning(service, pod, `${address.url}/readyz answers 200`, async () =>
    (await get(`${address.url}/readyz`, ca)).status === 200 ? true : undefined,
  );
  t.pass(`${service}: ${address.url}/readyz answers 200`);
  return address;
}

/** A page the service serves from its tree: 200, with its Content-Security-Policy. */
async function servesPage(t: Test, service: string, url: string): Promise<void> {
  const { status, headers } = await get(url);
  t.equal(status, 200, `${service}: ${url} answers 200`);
  t.ok(headers['content-security-policy'], `${service}: with a Content-Security-Policy`);
}

/** Nothing the service wrote was refused: it wrote only where its pod may. */
const noWriteRefused = (t: Test, service: string, pod: Running): void => {
  t.notMatch(pod.output(), /EROFS|EACCES|read-only file system|permission denied/i, `${service}: no write was refused`);
};

t.test(
  "each service starts from a read-only copy of its image's tree with the environment its chart renders",
  async (t) => {
    const { code } = await smoke;
    const unavailable = isolationUnavailable();
    if (unavailable !== undefined) return t.plan(0, unavailable);
    const trees = Object.keys(CHART).map((service) => join(work, 'image', service, 'node_modules'));
    // The trees are there once smoke.sh's build passed, whatever its checks said.
    if (!trees.every((tree) => existsSync(tree))) return t.fail(`smoke.sh (exit ${code}) built no image trees`);
    mkdirSync(join(work, 'home'));
    const kube = await startKubeLite({ tls: true, dataDir: join(work, 'kube') });
    t.teardown(() => kube.close());
    // The files a pod would have mounted: kube-lite's kubeconfig and CA, readable by the pod's user.
    const kubeDir = join(work, 'pods', 'kube');
    mkdirSync(kubeDir, { recursive: true });
    writeFileSync(join(kubeDir, 'kubeconfig'), readFileSync(kube.kubeconfigPath), { mode: 0o644 });
    const kubeCa = Buffer.from(kube.kubeConfig.getCurrentCluster()?.caData ?? '', 'base64');
    writeFileSync(join(kubeDir, 'ca.crt'), kubeCa, { mode: 0o644 });
    const { url: databaseUrl } = await freshSchema(t);
    // Registered after freshSchema's teardown, so it runs first: the services go before their schema does.
    t.teardown(stopAll);
    const platformPrefix = redisPrefix();
    const listen = { HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0' };
    // The platform's HS256 secret is one the test signs with; the other Secrets are values.ts's.
    const platformSecrets = { ...secrets, 'gsp-jwt': { secret: JWT_SECRET } };

    const platformAdmin = podOf('api-server').container.env?.find((v) => v.name === 'PLATFORM_ADMINS')?.value;
    const admin = platformAdmin?.split(',')[0];
    let apiUrl: string | undefined;
    let proxy: { url: string; tunnelUrl?: string } | undefined;

    await t.test('api-server', async (t) => {
      const pod = startPod(
        t,
        'api-server',
        { ...listen, DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: platformPrefix },
        platformSecrets,
      );
      apiUrl = (await ready(t, 'api-server', pod)).url;
      await servesPage(t, 'api-server', `${apiUrl}/console/`);
      noWriteRefused(t, 'api-server', pod);
    });

    await t.test('control-plane', async (t) => {
      const pod = startPod(t, 'control-plane', {
        ...listen,
        KUBECONFIG: join(kubeDir, 'kubeconfig'),
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: redisPrefix(),
      });
      const { url } = await ready(t, 'control-plane', pod);
      await servesPage(t, 'control-plane', `${url}/panel/`);
      // A refused sign-in is audited: its record goes to the spool, on the pod's emptyDir.
      const wrong = `Basic ${Buffer.from('admin:wrong').toString('base64')}`;
      const refused = await fetch(`${url}/api/v1/gameservers`, { headers: { authorization: wrong } });
      t.equal(refused.status, 401, 'a wrong password is refused');
      const spool = pod.env.AUDIT_SPOOL_DIR ?? '';
      await whileRunning('control-plane', pod, `a record in the audit spool ${spool}`, () =>
        readdirSync(spool).some((file) => statSync(join(spool, file)).size > 0) ? true : undefined,
      );
      t.pass(`control-plane: the audit spool (${spool}) took the record`);
      noWriteRefused(t, 'control-plane', pod);
    });

    await t.test('cluster-proxy', async (t) => {
      if (apiUrl === undefined) return t.fail('the API server did not start');
      const pod = startPod(
        t,
        'cluster-proxy',
        {
          ...listen,
          TUNNEL_PORT: '0',
          DATABASE_URL: databaseUrl,
          REDIS_URL: TEST_REDIS_URL,
          REDIS_KEY_PREFIX: platformPrefix,
          API_SERVER_URL: apiUrl,
        },
        platformSecrets,
      );
      proxy = await ready(t, 'cluster-proxy', pod, secrets['gsp-proxy-tls']!['ca.crt']);
      noWriteRefused(t, 'cluster-proxy', pod);
    });

    await t.test('tunnel-agent', async (t) => {
      if (apiUrl === undefined || proxy?.tunnelUrl === undefined) return t.fail('the platform did not start');
      t.ok(admin, 'the chart names a platform admin, who registers the cluster');
      const headers = { authorization: `Bearer ${await token(admin ?? '')}`, 'content-type': 'application/json' };
      const member = await fetch(`${apiUrl}/api/v1/tenants/smoke/members/${admin}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ role: 'admin' }),
      });
      t.equal(member.status, 200, 'tenant smoke made');
      const registered = await fetch(`${apiUrl}/api/v1/tenants/smoke/clusters`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'smoke' }),
      });
      t.equal(registered.status, 201, 'cluster registered');
      const { id, agentToken } = (await registered.json()) as { id: string; agentToken: string };
      const pod = startPod(
        t,
        'tunnel-agent',
        {
          ...listen,
          PROXY_TUNNEL_URL: proxy.tunnelUrl,
          CLUSTER_ID: id,
          KUBE_API_URL: kube.url,
          KUBE_CA_FILE: join(kubeDir, 'ca.crt'),
        },
        { ...secrets, 'agent-token': { token: agentToken } },
      );
      // Ready means its tunnel to the proxy is up: the proxy took the chart's CA, token and cluster id.
      await ready(t, 'tunnel-agent', pod);
      noWriteRefused(t, 'tunnel-agent', pod);
    });
  },
);
