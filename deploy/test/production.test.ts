/**
 * deploy/README.md's production path, pasted in order against the install test's stack: kube-lite
 * for the cluster, the machine's PostgreSQL and Redis, an OIDC provider for `https://id.example.com`.
 * Its shell lines run in bash as written (with the stack's addresses for the example ones, and step
 * 3's edits made to copies of the example values); the lines that need the internet or a customer
 * cluster are left out, each for a reason. Then the API server and the control plane run as their
 * Deployments say (the environment resolved as the kubelet would), an ingress stand-in routes by
 * host as the rendered Ingress objects say, and a browser that resolves platform.example.com and
 * games.example.com to it signs in to the web console and the panel.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { findHelm, findKubectl, startKubeLite } from '@gsp/kube-lite';
import { freshSchema, redisPrefix, TEST_REDIS_URL, until } from '@gsp/api-server/testing';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { nodeEntry } from '@gsp/service-kit/testing/entry';
import { assertBuilt, launchBrowser, openPage, pageProblems } from '@gsp/test-kit/browser';
import { startOidcProvider } from '@gsp/test-kit/oidc';
import { startIngressProxy } from './ingress-proxy.js';
import type { IngressObject } from './ingress-proxy.js';
import { bash, run, sectionShBlocks, shellLines } from './readme.js';
import { containerEnv, podSpec, root } from './render.js';
import type { Manifest } from './render.js';

assertBuilt(join(root, 'packages', 'web-console', 'dist') + '/', 'the console', 'packages/web-console');
assertBuilt(join(root, 'packages', 'gameserver-panel', 'dist') + '/', 'the panel', 'packages/gameserver-panel');

/** The README's production path: the commands of its section's `sh` blocks, in order. */
const productionLines = (): string[] => sectionShBlocks('Production install, in order').flatMap(shellLines);

/** Lines this stack cannot run, and why. */
const LEFT_OUT: [RegExp, string][] = [
  [/^helm (repo|install agones)/, 'needs the internet; kube-lite serves the Agones kinds itself'],
  [/kustomize 'https:/, 'needs the internet; kube-lite serves the VolumeSnapshot kinds itself'],
  [/^(API=|curl |CLUSTER_ID=|AGENT_TOKEN=|rm cluster\.json)/, 'the tenant and kubectl path: tested elsewhere'],
  [/--context customer|--kube-context customer|--kubeconfig acme/, 'needs a customer cluster'],
];

const SERVICES = new Map([
  ['gsp-platform-api-server', join(root, 'services', 'api-server', 'src', 'server.ts')],
  ['gsp-control-plane', join(root, 'services', 'control-plane', 'src', 'server.ts')],
]);

t.test('the README production path reaches a signed-in console and panel through the Ingress hosts', async (t) => {
  const provider = await startOidcProvider(t, {
    clients: [
      {
        id: 'gsp-console',
        secret: 'console-secret',
        redirectUri: 'https://platform.example.com/console/auth/callback',
      },
      { id: 'gsp-panel', secret: 'panel-secret', redirectUri: 'https://games.example.com/panel/auth/callback' },
    ],
    claims: { openid: ['sub', 'roles'], profile: ['name', 'preferred_username'], email: ['email'] },
    account: (sub) => ({ preferred_username: sub, roles: ['gsp-admins'] }),
  });
  const { url: databaseUrl } = await freshSchema(t);
  const kube = await startKubeLite({ port: 0, tls: true });
  t.teardown(() => kube.close());

  const work = mkdtempSync(join(tmpdir(), 'gsp-production-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const bin = join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(findKubectl({ searchPath: false }), join(bin, 'kubectl'));
  symlinkSync(findHelm({ searchPath: false }), join(bin, 'helm'));
  // "Run from the repository root": its deploy/ folder, with the files the steps write kept out of the checkout.
  symlinkSync(join(root, 'deploy'), join(work, 'deploy'));

  // Step 3: the operator's copies of the example values, with the issuer and admin as registered.
  const edited = (name: string, admin: string): string => {
    const path = join(work, `${name}.yaml`);
    const text = readFileSync(join(root, 'deploy', 'examples', `${name}.yaml`), 'utf8')
      .replaceAll('https://id.example.com#platform-admin', admin)
      .replaceAll('https://id.example.com', provider.issuer);
    writeFileSync(path, text);
    return path;
  };
  const values = new Map([
    ['deploy/examples/platform.yaml', edited('platform', `${provider.issuer}#alice`)],
    ['deploy/examples/control-plane.yaml', edited('control-plane', '')],
  ]);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: work,
    KUBECONFIG: kube.kubeconfigPath,
    CONSOLE_CLIENT_SECRET: 'console-secret',
    PANEL_CLIENT_SECRET: 'panel-secret',
  };
  const redisUrl = new URL(TEST_REDIS_URL).href.replace(/\/$/, '');
  const ran: string[] = [];
  const leftOut: string[] = [];
  for (const line of productionLines()) {
    const why = LEFT_OUT.find(([pattern]) => pattern.test(line))?.[1];
    if (why !== undefined) {
      leftOut.push(`${line.slice(0, 60)}: ${why}`);
      continue;
    }
    let command = line
      .replace("'postgres://gsp:PASSWORD@postgres.example.internal:5432/gsp'", `'${databaseUrl}'`)
      .replace("'redis://:PASSWORD@redis.example.internal:6379'", `'${redisUrl}'`);
    for (const [example, copy] of values) command = command.replace(` -f ${example}`, ` -f ${copy}`);
    const result = await bash(command, { cwd: work, env });
    t.equal(result.code, 0, `${line.slice(0, 100)}: ${result.code === 0 ? 'ran' : result.stdout + result.stderr}`);
    if (result.code !== 0) return;
    ran.push(line);
    // cert-manager's part of step 2: the proxy's certificate Secret, as its Certificate asks.
    if (line.startsWith('kubectl -n gsp create secret generic gsp-redis')) {
      const cert = generateSelfSignedCertificate('kubectl.example.com', ['kubectl.example.com']);
      writeFileSync(join(work, 'tls.crt'), cert.cert);
      writeFileSync(join(work, 'tls.key'), cert.key);
      await kubectlIn(
        env,
        ['-n', 'gsp', 'create', 'secret', 'tls', 'gsp-proxy-tls', '--cert=tls.crt', '--key=tls.key'],
        work,
      );
    }
  }
  t.comment(`ran ${ran.length} lines; left out ${leftOut.length}:\n${leftOut.join('\n')}`);
  t.ok(
    ran.some((l) => l.startsWith('helm install gsp deploy/helm/platform')),
    'the platform was installed',
  );
  t.ok(
    ran.some((l) => l.startsWith('helm install gsp-control-plane')),
    'the control plane was installed',
  );

  // What the cluster now holds: the Deployments, their ConfigMaps and Secrets, the Ingress objects.
  const list = async (kind: string): Promise<Manifest[]> =>
    (JSON.parse(await kubectlIn(env, ['-n', 'gsp', 'get', kind, '-o', 'json'], work)) as { items: Manifest[] }).items;
  const secrets: Record<string, Record<string, string>> = {};
  for (const secret of (await list('secrets')) as unknown as {
    metadata: { name: string };
    data?: Record<string, string>;
  }[])
    secrets[secret.metadata.name] = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
  const docs = [...(await list('deployments')), ...(await list('configmaps'))];
  const ingresses = (await list('ingresses')) as unknown as IngressObject[];
  t.same(
    ingresses.flatMap((i) => i.spec.rules?.map((r) => r.host) ?? []).sort(),
    ['games.example.com', 'platform.example.com'],
    'one Ingress host each for the console and the panel',
  );

  // Each pod's process, as its Deployment runs it, on a free loopback port.
  const backends = new Map<string, { host: string; port: number }>();
  for (const [name, server] of SERVICES) {
    const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === name)!;
    const spec = podSpec(deployment);
    const container = spec.containers[0]!;
    const files = join(work, 'pods', name);
    const podEnv = containerEnv(docs, spec, container, secrets, files);
    const processEnv = {
      ...podEnv,
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      // A pod reaches its API server in-cluster; this process, through kube-lite's kubeconfig.
      KUBECONFIG: kube.kubeconfigPath,
      REDIS_KEY_PREFIX: redisPrefix(),
    };
    const port = await startProcess(t, name, server, processEnv);
    backends.set(`${name}:http`, { host: '127.0.0.1', port });
  }

  const tls = generateSelfSignedCertificate('ingress', ['platform.example.com', 'games.example.com']);
  const ingress = await startIngressProxy(ingresses, backends, tls);
  t.teardown(() => ingress.close());
  const browser = await launchBrowser(t, {
    args: [
      `--host-resolver-rules=${['platform.example.com', 'games.example.com']
        .map((host) => `MAP ${host} 127.0.0.1:${ingress.port}`)
        .join(', ')}`,
      '--ignore-certificate-errors',
    ],
  });
  const signIn = async (page: Page): Promise<void> => {
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
  };

  const console = await openPage(t, browser, 'https://platform.example.com/console/');
  await console.page.getByRole('link', { name: 'Sign in' }).click();
  await signIn(console.page);
  await console.page.locator('[data-live="live"]').waitFor({ state: 'attached' });
  t.equal(new URL(console.page.url()).host, 'platform.example.com', 'the console, back at its public host');
  await console.page.getByRole('button', { name: 'Switch off' }).waitFor();
  t.pass('signed in as a platform admin: the platform switch is offered');
  t.same(await pageProblems(console), [], 'no CSP violation, no page error');

  const panel = await openPage(t, browser, 'https://games.example.com/panel/');
  await panel.page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await signIn(panel.page);
  await panel.page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.equal(new URL(panel.page.url()).host, 'games.example.com', 'the panel, back at its public host');
  t.same(await pageProblems(panel), [], 'no CSP violation, no page error');

  const hosts = new Set(ingress.routed.map((r) => `${r.host} -> ${r.backend}`));
  t.same(
    [...hosts].sort(),
    ['games.example.com -> gsp-control-plane:http', 'platform.example.com -> gsp-platform-api-server:http'],
    'every request went through the Ingress rules to its Service',
  );
});

async function kubectlIn(env: NodeJS.ProcessEnv, args: string[], cwd: string): Promise<string> {
  const result = await run('kubectl', args, { env, cwd });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** Starts a service's server with `env`; resolves with the port it listens on, once it is ready. */
async function startProcess(
  t: { teardown(fn: () => unknown): void },
  name: string,
  server: string,
  env: Record<string, string | undefined>,
): Promise<number> {
  const child = spawn(process.execPath, nodeEntry(server), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  let exited = false;
  child.once('exit', () => (exited = true));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  const address = await until(
    `${name} to listen`,
    () => {
      if (exited) throw new Error(`${name} exited:\n${output.slice(-2000)}`);
      return /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    },
    60_000,
    50,
  );
  const port = Number(address);
  await until(
    `${name} to be ready`,
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    },
    60_000,
    100,
  );
  return port;
}
