import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceDir } from '@gsp/service-kit/testing/entry';
import type { Page } from 'playwright-core';
import t from 'tap';
import type { Test } from 'tap';
import { bearer, build, PLATFORM_ADMIN, until } from '@gsp/api-server/testing';
import { launchBrowser, openPage, pageProblems, seriousA11yViolations } from '@gsp/test-kit/browser';

/** The repository; `npm start` and `npm run token` run from source (through tsx) as users run them. */
const root = workspaceDir(import.meta.url);
const dev = join(root, 'scripts', 'dev.ts');
const controlPlaneReadme = join(root, 'services', 'control-plane', 'README.md');
const tokenScript = join(root, 'scripts', 'token.ts');
const NODE_ARGS = ['--conditions=@gsp/source', '--import', 'tsx'];
/** Every port of npm start at 0, so this runs beside a real `npm start` and beside other tests. */
const ANY_PORT = Object.fromEntries(
  [
    'KUBE_LITE_PORT',
    'API_SERVER_PORT',
    'API_SERVER_METRICS_PORT',
    'CONTROL_PLANE_PORT',
    'CONTROL_PLANE_METRICS_PORT',
    'CLUSTER_PROXY_PORT',
    'CLUSTER_PROXY_TUNNEL_PORT',
    'CLUSTER_PROXY_METRICS_PORT',
    'TUNNEL_AGENT_PORT',
    'TUNNEL_AGENT_METRICS_PORT',
    'DEV_ISSUER_PORT',
  ].map((v) => [v, '0']),
);
/** Five service processes start under tsx on two cores: generous, and still bounded. */
const BANNER_DEADLINE_MS = 150_000;

// Two runs of the whole platform: more than the suite's 120 s per file.
t.setTimeout(480_000);

interface Banner {
  api: string;
  controlPlane: string;
  basicPassword: string;
  proxy: string;
  proxyMetrics: string;
  agent: string;
  kubeLite: string;
  token: string;
  /** The web console's URL. */
  console: string;
  /** The game-server panel's URL (served by the control plane). */
  panel: string;
  /** The console's development users: login to password. */
  passwords: Map<string, string>;
  text: string;
}

interface Runner {
  child: ChildProcess;
  dataDir: string;
  output(): string;
  banner: Promise<Banner>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function match(text: string, re: RegExp): string {
  const m = re.exec(text);
  if (!m?.[1]) throw new Error(`the banner has no ${re}:\n${text}`);
  return m[1];
}

/** Starts `npm start`'s runner (scripts/dev.ts) with its own data directory, database and ports. */
function startRunner(t: Test, env: Record<string, string>): Runner {
  const dataDir = mkdtempSync(join(tmpdir(), 'gsp-dev-'));
  const child = spawn(process.execPath, [...NODE_ARGS, dev], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...ANY_PORT, DEV_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal gives a foreground job: Ctrl-C signals all of it.
    detached: true,
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  type Exit = { code: number | null; signal: NodeJS.Signals | null };
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // Killing the launcher closes its IPC channel: the runner then stops every service by itself.
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const banner = (async (): Promise<Banner> => {
    const deadline = Date.now() + BANNER_DEADLINE_MS;
    let done: string | undefined;
    while (!(done = /={10,} GSP platform[\s\S]*?Press Ctrl-C to stop everything\./.exec(output)?.[0])) {
      if (child.exitCode !== null)
        throw new Error(`npm start exited (${child.exitCode}) before its banner:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no banner within ${BANNER_DEADLINE_MS / 1000} s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      text: done,
      api: match(done, /^api-server\s+(http:\/\/\S+)/m),
      controlPlane: match(done, /^control-plane\s+(http:\/\/\S+)/m),
      basicPassword: match(done, /Basic admin:(\S+),/),
      proxy: match(done, /^proxy\s+(https:\/\/\S+) \(kubectl\)/m),
      proxyMetrics: match(done, /^proxy\s.*metrics (http:\/\/\S+)$/m),
      agent: match(done, /^agent\s+(http:\/\/\S+)\/readyz/m),
      kubeLite: match(done, /^cluster\s+kube-lite (http:\/\/\S+)/m),
      token: match(done, /export TOKEN=(\S+)/),
      console: match(done, /^console\s+(http:\/\/\S+)/m),
      panel: match(done, /^panel\s+(http:\/\/\S+)/m),
      passwords: new Map([...done.matchAll(/^ +user (\S+) +password (\S+) /gm)].map((m) => [m[1]!, m[2]!])),
    };
  })();
  return { child, dataDir, output: () => output, banner, exited };
}

/** Opens the printed console URL and signs in through the development issuer's login page. */
async function signInAs(page: Page, login: string, password: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * The panel line of the banner, in a browser: open the printed URL, sign in as the printed Basic
 * user, and the game-server list shows, with no CSP violation or console error.
 */
async function panelSignsIn(t: Test, b: Banner): Promise<void> {
  t.match(
    b.text,
    /^panel\s+\S+\/panel\/\s+\(sign in with user admin, password \S+, or an API key\)/m,
    'the banner says how',
  );
  const browser = await launchBrowser(t);
  const opened = await openPage(t, browser, b.panel);
  const { page } = opened;
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(b.basicPassword);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Game servers', level: 2 }).waitFor({ timeout: 30_000 });
  // The tour's next step: the walkthrough's block left arena-1 there to open.
  await page.getByText('arena-1', { exact: true }).first().waitFor({ timeout: 30_000 });
  // page.request shares the browser context's cookies.
  const answer = await page.request.get(new URL('auth/session', b.panel).href);
  const session = (await answer.json()) as { signedIn: boolean; username: string; authMethod: string };
  t.match(session, { signedIn: true, username: 'admin', authMethod: 'basic' }, 'signed in by the panel cookie');
  t.same(await pageProblems(opened), [], 'no CSP violation or console error');
}

/**
 * The walkthrough line of the banner, in a browser: the platform admin signs in (after a wrong
 * password, refused in a sentence) and gets the platform switch; the viewer sees tenant `dev`.
 */
async function signsIn(t: Test, b: Banner): Promise<void> {
  t.match(b.text, /open \S+\/console\/, choose Sign in, and sign in as platform-admin/, 'the banner says how');
  t.same([...b.passwords.keys()], ['platform-admin', 'tenant-admin', 'tenant-viewer'], 'three users');
  const browser = await launchBrowser(t);

  const admin = await openPage(t, browser, b.console);
  await signInAs(admin.page, 'platform-admin', `not-${b.passwords.get('platform-admin')}`);
  const refusal = admin.page.getByRole('alert');
  await refusal.waitFor();
  t.match(await refusal.innerText(), /^That username and password don't match a user of this issuer\./);
  t.equal(admin.page.url().startsWith(b.console), false, 'a wrong password stays at the issuer');
  t.same(await seriousA11yViolations(admin.page), [], 'axe: no serious or critical violation on the login page');
  t.same(await pageProblems(admin), [], 'no CSP violation on the login page');

  await admin.page.getByLabel('Password').fill(b.passwords.get('platform-admin')!);
  await admin.page.getByRole('button', { name: 'Sign in' }).click();
  await admin.page.getByText('CLI access is on for the platform.').waitFor();
  await admin.page.getByRole('button', { name: 'Switch off' }).first().waitFor();
  t.equal(admin.page.url(), b.console, 'the platform admin is back on the console, signed in, with the switch');
  t.same(await pageProblems(admin), [], 'no CSP violation or page error');

  const viewer = await openPage(t, browser, b.console);
  await signInAs(viewer.page, 'tenant-viewer', b.passwords.get('tenant-viewer')!);
  await viewer.page
    .getByText(/^(Tenant )?dev$/)
    .first()
    .waitFor();
  t.equal(viewer.page.url(), b.console, 'the viewer is signed in and sees tenant dev');
}

async function status(url: string): Promise<number> {
  return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
}

/** The proxy's kubectl side speaks HTTPS with a self-signed certificate. */
function httpsStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false, timeout: 5000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/**
 * curl, wrapped only to note each answer's status on stderr, beside the bodies on stdout; the
 * block's own `-w` format (the final newline) is kept, before the note.
 */
const NOTE_STATUS = `curl() {
  local format='' args=()
  while [ $# -gt 0 ]; do if [ "$1" = -w ]; then format=$2; shift 2; else args+=("$1"); shift; fi; done
  command curl "\${args[@]}" -w "$format%{stderr}%{http_code} %{method} %{url_effective}\\n"
}`;

interface Pasted {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `<status> <method> <url>` of each request the block made. */
  answers: string[];
}

/**
 * Runs `block` as one script in bash from the repository root, unchanged and with no wait of ours
 * between its lines, as a terminal runs a pasted block; stdin is empty (a Ctrl-D at once).
 */
function paste(block: string, env: Record<string, string> = {}): Promise<Pasted> {
  const child = spawn('bash', ['-c', `${NOTE_STATUS}\n${block}`], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, answers: stderr.split('\n').filter((l) => /^\d{3} /.test(l)) });
    }),
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A README's paths and address as the test's own npm start has them (its data directory, its control plane). */
function asRunHere(text: string, runner: Runner, b: Banner): string {
  return text.replaceAll('localhost:8080', new URL(b.controlPlane).host).replaceAll('.data/', `${runner.dataDir}/`);
}

async function everyServiceIsUp(t: Test, b: Banner, agentConnected: boolean): Promise<void> {
  t.equal(await status(`${b.kubeLite}/readyz`), 200, 'kube-lite is ready');
  t.equal(await status(`${b.api}/readyz`), 200, 'the API server is ready');
  t.equal(await status(`${b.controlPlane}/readyz`), 200, 'the control plane is ready');
  t.equal(await httpsStatus(`${b.proxy}/readyz`), 200, "the proxy's kubectl side is ready");
  t.equal(await status(b.proxyMetrics), 200, "the proxy's metrics answer");
  t.equal(await status(`${b.agent}/healthz`), 200, 'the agent runs');
  t.equal(
    await status(`${b.agent}/readyz`),
    agentConnected ? 200 : 503,
    agentConnected ? 'the agent is connected' : 'the agent is not connected: the proxy refuses it',
  );
}

/**
 * Ctrl-C: SIGINT to the whole process group, as a terminal sends it. A clean exit 0 without
 * warnings, errors or failure reports, and every port closed.
 */
async function stopsCleanly(t: Test, runner: Runner, b: Banner): Promise<void> {
  t.notMatch(runner.output(), /closed prematurely/, "a live feed's close (the panel's list) is not reported");
  const before = runner.output().length;
  process.kill(-runner.child.pid!, 'SIGINT');
  const timer = setTimeout(() => runner.child.kill('SIGKILL'), 30_000);
  const { code, signal } = await runner.exited;
  clearTimeout(timer);
  const after = runner.output().slice(before);
  t.same({ code, signal }, { code: 0, signal: null }, 'exit code 0');
  t.notMatch(after, /"level":[456]\d/, 'no warning or error from any service while stopping');
  t.notMatch(after, /\[dev\]|Error|exited/, 'no failure reported');
  for (const url of [`${b.api}/healthz`, `${b.controlPlane}/healthz`, `${b.agent}/healthz`, `${b.kubeLite}/readyz`]) {
    await t.rejects(fetch(url, { signal: AbortSignal.timeout(5000) }), `${new URL(url).origin} is closed`);
  }
}

t.test('with kubectl access stored off for the platform, npm start comes up, says so and keeps running', async (t) => {
  const seed = await build(t);
  const off = await seed.app.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false },
  });
  t.equal(off.statusCode, 200, 'the switch is stored off before npm start');
  await seed.app.close();

  const runner = startRunner(t, { DATABASE_URL: seed.databaseUrl });
  const b = await runner.banner;

  await t.test('every service is ready and the banner says kubectl access is off, and why', async (t) => {
    await everyServiceIsUp(t, b, false);
    t.match(b.text, 'kubectl access is OFF: cli_access.enabled is stored false for the whole platform');
    t.match(
      b.text,
      `curl -s -w '\\n' -X DELETE ${b.api}/api/v1/platform/feature-flags/cli_access.enabled`,
      'it says how to turn it back on',
    );
    t.notMatch(runner.output(), /incoming request|request completed/, 'request logs stay out of the way');
  });

  await t.test('a token for another subject works once it is a member of the tenant', async (t) => {
    const admin = { authorization: `Bearer ${b.token}`, 'content-type': 'application/json' };
    const put = await fetch(`${b.api}/api/v1/tenants/dev/members/vic`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ role: 'viewer' }),
    });
    t.equal(put.status, 200);
    const token = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...NODE_ARGS, tokenScript, 'vic'],
        { env: { PATH: process.env.PATH, DEV_DATA_DIR: runner.dataDir }, timeout: 60_000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout.trim())),
      ),
    );
    const res = await fetch(`${b.api}/api/v1/tenants/dev/clusters`, { headers: { authorization: `Bearer ${token}` } });
    t.equal(res.status, 200, 'the viewer reads the clusters of tenant dev');
    t.match(await res.json(), { clusters: [{ name: 'local' }] });
  });

  await t.test(
    "npm start seeds profile arena, the one its fleet's servers name, and Create from it works",
    async (t) => {
      const basic = { authorization: `Basic ${Buffer.from(`admin:${b.basicPassword}`).toString('base64')}` };
      const profiles = (await (await fetch(`${b.controlPlane}/api/v1/profiles`, { headers: basic })).json()) as {
        name: string;
      }[];
      t.same(
        profiles.map((p) => p.name),
        ['arena'],
        "the panel's profile list has arena before any line of the banner is pasted",
      );
      const fleet = await (await fetch(`${b.controlPlane}/api/v1/fleets/games/arena`, { headers: basic })).json();
      t.match(fleet, { name: 'arena', profile: 'arena' }, 'the fleet names it');
      const created = await fetch(`${b.controlPlane}/api/v1/gameservers/games`, {
        method: 'POST',
        headers: { ...basic, 'content-type': 'application/json' },
        body: JSON.stringify({ profile: 'arena' }),
      });
      const server = (await created.json()) as { name: string; profile: string };
      t.equal(created.status, 201, 'a game server is created from it, as the panel creates one');
      t.match(server, { name: /^arena-/, profile: 'arena' });
      const url = `${b.controlPlane}/api/v1/gameservers/games/${server.name}`;
      // A server still Creating changes under a delete (409): wait for it, as the walkthrough does.
      const ready = async () => ((await (await fetch(url, { headers: basic })).json()) as { state: string }).state;
      await until('the new server to be Ready', async () => (await ready()) === 'Ready' || undefined, 30_000, 200);
      const deleted = await fetch(url, { method: 'DELETE', headers: basic });
      t.equal(deleted.status, 204, 'and deleted again, leaving the walkthrough its fleet as seeded');
    },
  );

  await t.test('the game-server walkthrough works pasted as one block, as printed', async (t) => {
    const block = /Game servers \(control plane[^\n]*\n((?: {2}\S.*\n)+)/.exec(b.text)?.[1] ?? '';
    t.equal(block.split('\n').filter((l) => l.trim().startsWith('curl ')).length, 7, 'seven curl lines');
    const run = await paste(block);
    t.equal(run.code, 0, run.code === 0 ? 'the block ran' : `the block failed: ${run.stderr.slice(-500)}`);
    t.same(
      run.answers.filter((l) => !/^2\d\d /.test(l)),
      [],
      'every request answered 2xx (no 409 for a server still Creating)',
    );
    t.notMatch(run.stdout, /is not Ready after/, 'the wait line did not time out');
    t.match(run.stdout, /"action":"say"[^}]*"exitCode":0/, 'say ran in the game server');
    t.match(run.stdout, /"action":"allocate".*"state":"Allocated"/, 'arena-1 was allocated');
    t.match(run.answers.join('\n'), /^2\d\d POST \S+\/api\/v1\/fleets\/games\/arena\/scale$/m, 'the fleet was scaled');
    t.match(run.stdout, /"replicas":3/, 'to 3');
    t.match(run.stdout, /"name":"arena-1"/, 'the list has arena-1');
    t.notMatch(run.stdout, /[}\]]\{|[}\]]\[/, 'no JSON answer runs into the next');
    const answers = run.stdout.split('\n').filter((l) => /^[{[]/.test(l));
    t.ok(answers.length >= 7, `${answers.length} JSON answers`);
    t.same(
      answers.filter((l) => !isJson(l)),
      [],
      'each JSON answer is a line of its own, so the next prompt is not glued to one',
    );
    const res = await fetch(`${b.controlPlane}/api/v1/gameservers/games/arena-1`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${b.basicPassword}`).toString('base64')}` },
    });
    t.equal(res.status, 200, 'the block leaves arena-1 there for the panel tour');
    t.match(await res.json(), { name: 'arena-1', state: 'Allocated' });
    t.match(
      b.text,
      /^The game-server panel: open \S+ and sign in as admin .*run the lines above:\n {2}arena-1 appears/m,
      'the panel tour follows the block and opens arena-1',
    );
    t.match(b.text, /^ {2}curl -s -w '\\n' -u admin:\S+ -X DELETE '\S+\/gameservers\/games\/arena-1\?force=true'$/m);
    t.ok(
      b.text.indexOf('arena-1?force=true') > b.text.indexOf('The game-server panel:'),
      'its delete comes after the tour',
    );
  });

  await t.test("the control plane README's console example works after the banner's block", async (t) => {
    const readme = readFileSync(controlPlaneReadme, 'utf8');
    const block = /```sh\n(export GSP_BASIC_USER=[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    t.match(block, /npm run -s terminal -- games\/arena-1/, 'the example found');
    const run = await paste(asRunHere(block, runner, b), { CONTROL_PLANE_URL: b.controlPlane });
    t.equal(run.code, 0, run.code === 0 ? 'it ran' : `it failed: ${run.stderr.slice(-500)}`);
    t.match(run.stdout, 'gameserver games/arena-1: state=Allocated', 'status answers, as the README shows');
    t.match(run.stdout, '[server] hello', 'say hello is said');
    t.notMatch(run.stderr, /404|not found/i, 'arena-1 is there');
  });

  await t.test("the control plane README's snapshot walkthrough works pasted as one block", async (t) => {
    const readme = readFileSync(controlPlaneReadme, 'utf8');
    const block = /Walkthrough against `npm start`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    t.match(block, /world-1-before-update/, 'the walkthrough found');
    const run = await paste(asRunHere(block, runner, b));
    t.equal(run.code, 0, run.code === 0 ? 'the block ran' : `the block failed: ${run.stderr.slice(-800)}`);
    t.same(
      run.answers.filter((l) => !/^2\d\d /.test(l)),
      [],
      'every request answered 2xx (no 409 for a server still Scheduled, no 422 for a snapshot not taken)',
    );
    t.notMatch(run.stdout, / after 30 s/, 'no wait timed out');
    t.match(run.answers.join('\n'), /^202 POST \S+\/gameservers\/games\/world-1\/snapshots$/m, 'the snapshot taken');
    t.match(run.stdout, /world-1-before-update\s+true\s/, 'kubectl shows it READYTOUSE');
    t.match(run.stdout, /\[say\] saving[\s\S]*\[say\] saved/, 'its hooks ran in the game');
    t.match(
      run.stdout,
      '{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"world-1-before-update"}\n',
      'world-2 was restored from it',
    );
    t.match(run.answers.join('\n'), /^204 DELETE \S+\/snapshots\/games\/world-1-before-update$/m, 'and it is deleted');
    t.notMatch(run.stderr, /NotFound|Error from server/, 'kubectl found everything');
  });

  await t.test('audit lines go to the file the banner names, not to the console', async (t) => {
    const auditLog = join(runner.dataDir, 'control-plane', 'audit.log');
    t.match(b.text, `audit lines (one a request) go to ${auditLog}`, 'the banner says where');
    const res = await fetch(`${b.controlPlane}/api/v1/session`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${b.basicPassword}`).toString('base64')}` },
    });
    t.equal(res.status, 200);
    const requestId = res.headers.get('x-request-id')!;
    await until(
      "the request's audit line in the file",
      () => readFileSync(auditLog, 'utf8').includes(`"requestId":"${requestId}"`) || undefined,
      10_000,
      100,
    );
    t.pass('the audit line of the request is in the file');
    t.notMatch(
      runner.output(),
      /\[audit\]|"level":"audit"/,
      'and no audit line in the console, after all the blocks above',
    );
  });

  await t.test(
    'the banner and kube-lite say one kubectl, and every curl of the banner ends its answer with a newline',
    async (t) => {
      t.match(runner.output(), /^\[kube-lite\] try: npx gsp-kubectl --kubeconfig \S+ get namespaces$/m);
      t.notMatch(runner.output(), /(?<!gsp-)kubectl --kubeconfig/, "never the machine's own kubectl");
      const curls = b.text.split('\n').filter((l) => /\bcurl /.test(l) && !/ > \S+$/.test(l));
      t.ok(curls.length >= 10, `${curls.length} curl lines`);
      t.same(
        curls.filter((l) => !l.includes("curl -s -w '\\n' ")),
        [],
        "each prints its answer with a final newline (curl -s -w '\\n'), but the one that writes a file",
      );
    },
  );

  await t.test('turning access back on through the API connects the agent without a restart', async (t) => {
    const res = await fetch(`${b.api}/api/v1/platform/feature-flags/cli_access.enabled`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${b.token}` },
    });
    t.ok(res.ok, `the switch API answers (${res.status})`);
    // The proxy's flag cache (1 s here) and the agent's redial (at most 5 s here) bound this.
    await until(
      'the agent to connect',
      async () => (await status(`${b.agent}/readyz`)) === 200 || undefined,
      20_000,
      200,
    );
    t.pass('the agent is connected');
  });

  await t.test('the console signs in as the banner says, and refuses a wrong password', (t) => signsIn(t, b));
  await t.test('the panel signs in as the banner says and shows the game servers', (t) => panelSignsIn(t, b));

  await t.test('Ctrl-C stops everything cleanly', (t) => stopsCleanly(t, runner, b));
});

t.test(
  'with kubectl access pinned off and KUBECONFIG empty, npm start comes up on kube-lite and says access is pinned',
  async (t) => {
    // No DATABASE_URL: the embedded PostgreSQL in the runner's data directory, which must outlive the services.
    // KUBECONFIG set but empty is unset, as kubectl takes it: kube-lite, as without it.
    const runner = startRunner(t, { SERVICE_CLI_ACCESS_ENABLED: 'false', KUBECONFIG: '' });
    const b = await runner.banner;

    await t.test('every service is ready and the banner names the pin', async (t) => {
      await everyServiceIsUp(t, b, false);
      t.match(b.text, 'kubectl access is pinned OFF by SERVICE_CLI_ACCESS_ENABLED=false');
      t.match(
        b.text,
        /^cluster +kube-lite http:/m,
        'KUBECONFIG= (empty): kube-lite, and the control plane started on it',
      );
      t.notMatch(b.text, /curl -s -X (PUT|DELETE) \S+\/feature-flags\//, 'no switch command that would do nothing');
    });

    await t.test('Ctrl-C stops everything cleanly', (t) => stopsCleanly(t, runner, b));
  },
);
