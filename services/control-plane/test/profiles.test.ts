import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { parse } from 'yaml';
import { WELL_FORMED_RULE } from '@gsp/platform-contract';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { BASIC_ADMIN, baseEnv, build, createKey, kubectl, startKube, until } from './helper.js';

const kube = await startKube(t);
const { app } = await build(t, kube);

const MINECRAFT = {
  description: 'Vanilla Minecraft',
  image: 'itzg/minecraft-server:2024.6',
  ports: [{ name: 'game', containerPort: 25565, protocol: 'TCP' }],
  env: { EULA: 'TRUE' },
  resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
  health: { initialDelaySeconds: 30, periodSeconds: 10 },
  storage: { size: '5Gi', mountPath: '/data' },
  players: { initialCapacity: 20 },
  restartCommand: ['rcon-cli', 'stop'],
  actions: { save: { command: ['rcon-cli', 'save-all'], timeoutSeconds: 60, description: 'Flush the world to disk' } },
  snapshot: { preCommand: ['rcon-cli', 'save-off'], postCommand: ['rcon-cli', 'save-on'] },
};

interface Problem {
  status: number;
  detail: string;
  errors?: { in: string; pointer: string; detail: string }[];
}

const put = (name: string, body: unknown, headers: Record<string, string> = BASIC_ADMIN) =>
  app.inject({ method: 'PUT', url: `/api/v1/profiles/${name}`, headers, payload: body as Record<string, unknown> });
const get = (name: string) => app.inject({ url: `/api/v1/profiles/${name}`, headers: BASIC_ADMIN });

async function listedNames(on: FastifyInstance = app): Promise<string[]> {
  const res = await on.inject({ url: '/api/v1/profiles', headers: BASIC_ADMIN });
  if (res.statusCode !== 200) throw new Error(`listing profiles: ${res.statusCode} ${res.body}`);
  return (res.json() as { name: string }[]).map((p) => p.name);
}

/** Applies a ConfigMap with kubectl, as someone managing profiles by hand or with GitOps would. */
async function applyConfigMap(
  name: string,
  labels: Record<string, string>,
  data: Record<string, string>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-profile-'));
  const file = join(dir, 'configmap.json');
  writeFileSync(
    file,
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data }),
  );
  try {
    const run = await kubectl(kube, ['apply', '-f', file]);
    if (run.code !== 0) throw new Error(`kubectl apply ${name}: ${run.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const applyProfile = (name: string, yaml: string) =>
  applyConfigMap(`gsp-profile-${name}`, { 'gsp.dev/profile': name }, { 'profile.yaml': yaml });

t.test('an admin creates a profile with PUT and reads it back with its defaults filled in', async (t) => {
  const created = await put('minecraft', MINECRAFT);
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.headers.location, '/api/v1/profiles/minecraft');
  const expected = { name: 'minecraft', ...MINECRAFT };
  t.same(created.json(), expected);

  const read = await get('minecraft');
  t.equal(read.statusCode, 200);
  t.same(read.json(), expected, 'served at once by the replica that wrote it');
  t.ok((await listedNames()).includes('minecraft'));

  const minimal = await put('bare', {
    image: 'nginx',
    ports: [{ name: 'http', containerPort: 80 }],
    actions: { ping: { command: ['true'] } },
  });
  t.equal(minimal.statusCode, 201);
  t.same(minimal.json(), {
    name: 'bare',
    image: 'nginx',
    ports: [{ name: 'http', containerPort: 80, protocol: 'UDP' }],
    env: {},
    actions: { ping: { command: ['true'], timeoutSeconds: 30 } },
  });
});

t.test('PUT of an existing profile replaces it and answers 200', async (t) => {
  t.equal((await put('replaced', { image: 'a:1', ports: [{ name: 'game', containerPort: 7777 }] })).statusCode, 201);
  const replaced = await put('replaced', { image: 'a:2', ports: [{ name: 'game', containerPort: 7778 }] });
  t.equal(replaced.statusCode, 200);
  t.equal(replaced.headers.location, undefined);
  t.match((await get('replaced')).json(), { image: 'a:2', ports: [{ containerPort: 7778 }] });
});

t.test('the list is a JSON array of the profiles sorted by name', async (t) => {
  for (const name of ['sort-c', 'sort-a', 'sort-b'])
    t.equal((await put(name, { image: 'x', ports: [{ name: 'p', containerPort: 1 }] })).statusCode, 201);
  const names = await listedNames();
  t.same(
    names.filter((n) => n.startsWith('sort-')),
    ['sort-a', 'sort-b', 'sort-c'],
  );
  t.same(names, [...names].sort(), 'every profile in name order');
});

t.test(
  'a profile put through the API is a ConfigMap kubectl sees, labelled, with its document in profile.yaml',
  async (t) => {
    t.equal((await put('kubectl-visible', MINECRAFT)).statusCode, 201);
    const run = await kubectl(kube, ['get', 'configmap', '-l', 'gsp.dev/profile', '-n', 'default', '-o', 'yaml']);
    t.equal(run.code, 0, run.stderr);
    const list = parse(run.stdout) as {
      items: { metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> }[];
    };
    const configMap = list.items.find((i) => i.metadata.name === 'gsp-profile-kubectl-visible');
    if (!configMap) return t.fail(`no ConfigMap gsp-profile-kubectl-visible in:\n${run.stdout}`);
    t.same(configMap.metadata.labels, {
      'gsp.dev/profile': 'kubectl-visible',
      'app.kubernetes.io/managed-by': 'gsp-control-plane',
    });
    t.same(parse(configMap.data['profile.yaml'] as string), MINECRAFT, 'the document, without its name');
  },
);

t.test('a valid ConfigMap applied with kubectl shows up in the list and is served', async (t) => {
  await applyProfile('by-hand', 'image: ghcr.io/example/game:1\nports:\n  - name: game\n    containerPort: 7777\n');
  await until('the hand-made profile to be listed', async () => (await listedNames()).includes('by-hand'));
  t.same((await get('by-hand')).json(), {
    name: 'by-hand',
    image: 'ghcr.io/example/game:1',
    ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
    env: {},
    actions: {},
  });
});

t.test(
  'a ConfigMap with a bad port is not served: GET answers 422 naming the field, and the list still answers',
  async (t) => {
    t.equal((await put('still-fine', { image: 'x', ports: [{ name: 'p', containerPort: 1 }] })).statusCode, 201);
    await applyProfile('bad-port', 'image: x\nports:\n  - name: game\n    containerPort: 70000\n');
    const res = await until('the bad profile to be seen', async () => {
      const r = await get('bad-port');
      return r.statusCode === 422 && r;
    });
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = res.json() as Problem;
    t.match(problem.detail, /ConfigMap gsp-profile-bad-port in namespace default/);
    t.match(problem.detail, /ports\[0\]\.containerPort must be at most 65535/);
    t.same(problem.errors, [
      { in: 'body', pointer: '#/ports/0/containerPort', detail: 'ports[0].containerPort must be at most 65535' },
    ]);

    const names = await listedNames();
    t.notOk(names.includes('bad-port'), 'not listed');
    t.ok(names.includes('still-fine'), 'the valid ones are');
  },
);

t.test('a ConfigMap that is not YAML, or is misnamed, is reported by GET and not served', async (t) => {
  await applyProfile('not-yaml', 'image: [\n');
  await applyConfigMap(
    'my-own-name',
    { 'gsp.dev/profile': 'misnamed' },
    { 'profile.yaml': 'image: x\nports: [{name: p, containerPort: 1}]\n' },
  );
  const notYaml = await until('the unparsable profile to be seen', async () => {
    const r = await get('not-yaml');
    return r.statusCode === 422 && (r.json() as Problem);
  });
  t.match(notYaml.errors, [{ pointer: '#', detail: /^profile\.yaml is not valid YAML: .* at line \d+, column \d+$/ }]);
  const misnamed = await until('the misnamed profile to be seen', async () => {
    const r = await get('misnamed');
    return r.statusCode === 422 && (r.json() as Problem);
  });
  t.match(misnamed.detail, /ConfigMap my-own-name .* must be named gsp-profile-misnamed/);
  const names = await listedNames();
  t.notOk(names.includes('not-yaml') || names.includes('misnamed'));
});

t.test('replacing a profile with kubectl updates the served profile', async (t) => {
  t.equal((await put('edited', { image: 'game:1', ports: [{ name: 'p', containerPort: 1 }] })).statusCode, 201);
  await applyProfile('edited', 'image: game:2\nports: [{name: p, containerPort: 2, protocol: TCP}]\n');
  await until(
    'the edit to be served',
    async () => ((await get('edited')).json() as { image: string }).image === 'game:2',
  );
  t.match((await get('edited')).json(), { image: 'game:2', ports: [{ name: 'p', containerPort: 2, protocol: 'TCP' }] });
});

t.test('a replica that did not write a profile serves it once its watch brings it', async (t) => {
  const other = await build(t, kube);
  t.equal((await put('elsewhere', { image: 'x', ports: [{ name: 'p', containerPort: 1 }] })).statusCode, 201);
  await until('the other replica to list it', async () => (await listedNames(other.app)).includes('elsewhere'));
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/api/v1/profiles/elsewhere', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  await until('the other replica to drop it', async () => !(await listedNames(other.app)).includes('elsewhere'));
});

t.test('DELETE removes a profile: then GET and DELETE answer 404', async (t) => {
  t.equal((await put('doomed', { image: 'x', ports: [{ name: 'p', containerPort: 1 }] })).statusCode, 201);
  const deleted = await app.inject({ method: 'DELETE', url: '/api/v1/profiles/doomed', headers: BASIC_ADMIN });
  t.equal(deleted.statusCode, 204);
  const after = await get('doomed');
  t.equal(after.statusCode, 404);
  t.match(after.json(), { status: 404, detail: 'profile doomed not found' });
  t.notOk((await listedNames()).includes('doomed'));
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/api/v1/profiles/doomed', headers: BASIC_ADMIN })).statusCode,
    404,
  );
  const run = await kubectl(kube, ['get', 'configmap', 'gsp-profile-doomed', '-n', 'default']);
  t.not(run.code, 0, 'its ConfigMap is gone');
});

t.test(
  "a ConfigMap of the profile's name that is not a profile is left alone: PUT answers 409, DELETE 404",
  async (t) => {
    const created = await kubectl(kube, [
      '-n',
      'default',
      'create',
      'configmap',
      'gsp-profile-squatted',
      '--from-literal=mine=yes',
    ]);
    t.equal(created.code, 0, created.stderr);
    const res = await put('squatted', { image: 'x', ports: [{ name: 'p', containerPort: 1 }] });
    t.equal(res.statusCode, 409);
    t.match(res.json(), { detail: /ConfigMap gsp-profile-squatted in namespace default exists and is not a profile/ });
    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/profiles/squatted', headers: BASIC_ADMIN })).statusCode,
      404,
    );
    const run = await kubectl(kube, [
      '-n',
      'default',
      'get',
      'configmap',
      'gsp-profile-squatted',
      '-o',
      'jsonpath={.data.mine}',
    ]);
    t.equal(run.stdout, 'yes', 'untouched');
  },
);

/** The `errors` of the 400 problem a PUT of `body` answers; anything else fails the test. */
async function refused(body: unknown): Promise<Problem['errors']> {
  const res = await put('refused', body);
  const isProblem = res.headers['content-type'] === 'application/problem+json; charset=utf-8';
  if (res.statusCode !== 400 || !isProblem)
    throw new Error(`expected a 400 problem, got ${res.statusCode} ${res.body}`);
  return (res.json() as Problem).errors;
}

const VALID = { image: 'x', ports: [{ name: 'p', containerPort: 1 }] };

t.test('a PUT body with an unknown field answers 400 naming it', async (t) => {
  t.same(await refused({ ...VALID, extra: 1, ports: [{ name: 'p', containerPort: 1, hostPort: 2 }] }), [
    { in: 'body', pointer: '#/extra', detail: 'unknown field "extra"' },
    { in: 'body', pointer: '#/ports/0/hostPort', detail: 'unknown field "ports[0].hostPort"' },
  ]);
});

t.test('a PUT body with wrong types answers 400 naming each field', async (t) => {
  const errors = await refused({
    image: 5,
    ports: [{ name: 'p', containerPort: '80', protocol: 'SCTP' }],
    env: { PORT: 80 },
    players: { initialCapacity: -1 },
  });
  t.same(errors, [
    { in: 'body', pointer: '#/image', detail: 'image must be a string' },
    { in: 'body', pointer: '#/ports/0/containerPort', detail: 'ports[0].containerPort must be an integer' },
    { in: 'body', pointer: '#/ports/0/protocol', detail: 'ports[0].protocol must be one of UDP, TCP, TCPUDP' },
    { in: 'body', pointer: '#/env/PORT', detail: 'env.PORT must be a string' },
    { in: 'body', pointer: '#/players/initialCapacity', detail: 'players.initialCapacity must be at least 0' },
  ]);
});

t.test('a PUT body missing what a profile needs answers 400 naming it', async (t) => {
  t.same(await refused({ ports: [] }), [
    { in: 'body', pointer: '#/image', detail: 'image is required' },
    { in: 'body', pointer: '#/ports', detail: 'ports must have at least 1 item' },
  ]);
});

t.test('a profile may not define a built-in action', async (t) => {
  t.same(await refused({ ...VALID, actions: { restart: { command: ['kill', '1'] }, save: { command: ['save'] } } }), [
    {
      in: 'body',
      pointer: '#/actions/restart',
      detail:
        'actions.restart is a built-in action and cannot be redefined ' +
        '(the built-in actions are allocate, shutdown, restart, reserve)',
    },
  ]);
});

t.test('an argv element with a NUL character is refused', async (t) => {
  t.same(await refused({ ...VALID, restartCommand: ['stop', 'now\u0000'] }), [
    { in: 'body', pointer: '#/restartCommand/1', detail: 'restartCommand[1] must not contain NUL characters' },
  ]);
});

t.test(
  'half a character anywhere in a profile is a 400 naming its pointer, and Kubernetes never sees it',
  async (t) => {
    t.same(await refused({ ...VALID, description: 'Vanilla \ud800 Minecraft' }), [
      { in: 'body', pointer: '#/description', detail: `description ${WELL_FORMED_RULE}` },
    ]);
    t.match(await refused({ ...VALID, env: { MOTD: 'welcome \udc00' } }), [{ pointer: '#/env/MOTD' }]);
    t.match(await refused({ ...VALID, restartCommand: ['say', '\ude00\ud83d'] }), [{ pointer: '#/restartCommand/1' }]);
    const run = await kubectl(kube, ['get', 'configmap', 'gsp-profile-refused', '-n', 'default']);
    t.not(run.code, 0, 'no ConfigMap was written');
    t.equal(
      (await put('emoji', { ...VALID, description: 'Vanilla 😀 Minecraft' })).statusCode,
      201,
      'whole characters are fine',
    );
  },
);

t.test('every error of a body is named at once, those of the schema and those across fields', async (t) => {
  const errors = await refused({
    image: 'x',
    ports: [
      { name: 'game', containerPort: 0 },
      { name: 'game', containerPort: 2 },
    ],
    resources: { requests: { memory: '4Gi' }, limits: { memory: '2Gi', cpu: 'lots' } },
  });
  t.same(
    errors?.map((e) => e.pointer),
    ['#/ports/0/containerPort', '#/resources/limits/cpu', '#/ports/1/name', '#/resources/requests/memory'],
  );
  t.match(errors, [
    {},
    { detail: 'resources.limits.cpu must be a Kubernetes quantity such as 500m, 2, 512Mi or 1.5Gi' },
    { detail: 'ports[1].name must be unique: ports[0] is also named "game"' },
    { detail: 'resources.requests.memory must not exceed resources.limits.memory (2Gi)' },
  ]);
});

t.test('a refused PUT writes nothing', async (t) => {
  t.equal((await get('refused')).statusCode, 404);
  const run = await kubectl(kube, ['get', 'configmap', 'gsp-profile-refused', '-n', 'default']);
  t.not(run.code, 0);
});

t.test('a profile name that is not a DNS label answers 400 naming the path parameter', async (t) => {
  for (const name of ['Minecraft', 'a_b', '-a', 'x'.repeat(64), '%0Aa']) {
    const res = await put(name, VALID);
    t.equal(res.statusCode, 400, name);
    t.match((res.json() as Problem).errors, [{ in: 'path', pointer: '#/name' }], name);
  }
});

t.test('a viewer reads profiles but may not change them', async (t) => {
  const viewer = { 'x-api-key': await createKey(app, 'profile-viewer', 'viewer') };
  t.equal((await app.inject({ url: '/api/v1/profiles', headers: viewer })).statusCode, 200);
  t.equal((await put('viewer-made', VALID, viewer)).statusCode, 403);
  t.equal((await get('viewer-made')).statusCode, 404);
});

t.test('/openapi.json documents the profile routes and the profile schema', async (t) => {
  const doc = (await app.inject({ url: '/openapi.json', headers: BASIC_ADMIN })).json() as {
    paths: Record<
      string,
      Record<
        string,
        {
          tags?: string[];
          requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
        }
      >
    >;
  };
  const one = doc.paths['/api/v1/profiles/{name}'];
  t.same(one?.put?.tags, ['profiles']);
  t.ok(one?.put?.requestBody?.content['application/json']?.schema.properties.ports, 'the body schema');
  t.same(doc.paths['/api/v1/profiles']?.get?.tags, ['profiles']);
});

/** Collects the application log, one JSON object a line. */
class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString().split('\n'))
      if (line !== '') this.lines.push(JSON.parse(line) as Record<string, unknown>);
    callback();
  }
}

t.test('an invalid ConfigMap is logged once per version, by its pointers and never its content', async (t) => {
  const log = new LogCapture();
  const config = loadConfig(baseEnv(kube), { serviceAccountNamespaceFile: '/nonexistent' });
  const logged = await buildApp(config, {
    logger: { level: 'warn', stream: log },
    auditStream: new Writable({ write: (_c, _e, cb) => cb() }),
  });
  t.teardown(() => logged.close());
  await logged.ready();
  const secret = 'hunter2-do-not-log';
  await applyProfile(
    'logged',
    `image: x\nports: [{name: p, containerPort: 0}]\nenv: {PASSWORD: ${secret}}\nsecretField: ${secret}\n`,
  );
  const about = () => log.lines.filter((l) => l.configMap === 'gsp-profile-logged');
  await until('the warning', () => about().length > 0);
  t.match(about()[0], { level: 40, pointers: ['/secretField', '/ports/0/containerPort'] });
  // The same version seen again (a second replica's write of another profile, a relist): no new line.
  t.equal((await put('logged-barrier', VALID)).statusCode, 201);
  await until('the barrier on the logging replica', async () => (await listedNames(logged)).includes('logged-barrier'));
  t.equal(about().length, 1, 'once for this version');
  await applyProfile('logged', 'image: x\nports: [{name: p, containerPort: 70000}]\n');
  await until('the warning about the new version', () => about().length === 2);
  t.notOk(JSON.stringify(log.lines).includes(secret), 'no content in the log');
});
