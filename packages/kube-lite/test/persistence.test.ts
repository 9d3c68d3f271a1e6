import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startKubeLite } from '@gsp/kube-lite';
import { createGameServer, untilState } from './agones-helper.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-lite-data-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('restarting on the same data dir keeps every object and keeps resourceVersions increasing', async (t) => {
  const dataDir = tempDir(t);
  const first = await startKubeLite({ port: 0, dataDir, stepMs: 20 });
  const core = first.kubeConfig.makeApiClient(CoreV1Api);
  const custom = first.kubeConfig.makeApiClient(CustomObjectsApi);
  await core.createNamespace({ body: { metadata: { name: 'keys' } } });
  const secret = await core.createNamespacedSecret({
    namespace: 'keys',
    body: { metadata: { name: 'key-a', labels: { 'gsp.dev/apikey': 'true' } }, stringData: { hash: 'abc' } },
  });
  await core.createNamespacedConfigMap({
    namespace: 'keys',
    body: { metadata: { name: 'settings' }, data: { mode: 'dev' } },
  });
  await custom.createNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace: 'keys',
    plural: 'gameservers',
    body: { apiVersion: 'agones.dev/v1', kind: 'GameServer', metadata: { name: 'gs-1' }, spec: {} },
  });
  const before = await core.listNamespacedSecret({ namespace: 'keys' });
  const lastVersion = Number(before.metadata?.resourceVersion);
  await first.close();

  const files = readdirSync(dataDir);
  t.ok(files.includes('state.json'), 'the state is in state.json');
  t.notOk(
    files.some((f) => f.endsWith('.tmp')),
    'no temporary file is left behind',
  );
  t.doesNotThrow(
    () => JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')),
    'the state file is complete JSON',
  );

  const second = await startKubeLite({ port: 0, dataDir, stepMs: 20 });
  t.teardown(() => second.close());
  const core2 = second.kubeConfig.makeApiClient(CoreV1Api);
  const custom2 = second.kubeConfig.makeApiClient(CustomObjectsApi);
  const again = await core2.readNamespacedSecret({ namespace: 'keys', name: 'key-a' });
  t.equal(again.metadata?.uid, secret.metadata?.uid, 'the same object, not a copy');
  t.equal(again.metadata?.resourceVersion, secret.metadata?.resourceVersion);
  t.same(again.metadata?.labels, { 'gsp.dev/apikey': 'true' });
  t.equal(Buffer.from(again.data?.hash ?? '', 'base64').toString(), 'abc');
  t.equal((await core2.readNamespacedConfigMap({ namespace: 'keys', name: 'settings' })).data?.mode, 'dev');
  const gs = (await custom2.getNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace: 'keys',
    plural: 'gameservers',
    name: 'gs-1',
  })) as {
    metadata: { name: string };
  };
  t.equal(gs.metadata.name, 'gs-1');
  t.same(((await core2.listNamespace()).items ?? []).map((n) => n.metadata?.name).sort(), [
    'default',
    'keys',
    'kube-public',
    'kube-system',
  ]);

  const updated = await core2.replaceNamespacedSecret({
    namespace: 'keys',
    name: 'key-a',
    body: { ...again, stringData: { hash: 'def' } },
  });
  t.ok(
    Number(updated.metadata?.resourceVersion) > lastVersion,
    'a write after the restart gets a higher resourceVersion than any before it',
  );
  const list = await core2.listNamespacedSecret({ namespace: 'keys' });
  t.ok(Number(list.metadata?.resourceVersion) >= Number(updated.metadata?.resourceVersion));
});

t.test('a GameServer still starting when kube-lite stops becomes Ready after the restart', async (t) => {
  const dataDir = tempDir(t);
  const first = await startKubeLite({ port: 0, dataDir, stepMs: 10_000 });
  await createGameServer(first.kubeConfig.makeApiClient(CustomObjectsApi), { name: 'half-started' });
  await first.close();
  const second = await startKubeLite({ port: 0, dataDir, stepMs: 20 });
  t.teardown(() => second.close());
  await untilState(second.kubeConfig.makeApiClient(CustomObjectsApi), 'half-started');
  const pod = await second.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedPod({ namespace: 'default', name: 'half-started' });
  t.equal(pod.status?.phase, 'Running');
});

t.test('without a data dir nothing is kept between runs', async (t) => {
  const first = await startKubeLite({ port: 0 });
  await first.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'temporary' } } });
  await first.close();
  const second = await startKubeLite({ port: 0 });
  t.teardown(() => second.close());
  const names = ((await second.kubeConfig.makeApiClient(CoreV1Api).listNamespace()).items ?? []).map(
    (n) => n.metadata?.name,
  );
  t.notOk(names.includes('temporary'));
});
