import t from 'tap';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { startForTest, until } from './helper.js';

interface StatusBody {
  kind: string;
  status: string;
  reason: string;
  code: number;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { field?: string; reason?: string }[] };
}

/** Runs `fn`, expects an ApiException, and returns its code and Status body. */
async function apiError(fn: () => Promise<unknown>): Promise<{ code: number; body: StatusBody }> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const raw = (err as ApiException<unknown>).body;
    const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as StatusBody;
    return { code: (err as ApiException<unknown>).code, body };
  }
  throw new Error('expected an ApiException');
}

t.test('secrets can be created, read, replaced, patched and deleted', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const created = await core.createNamespacedSecret({
    namespace: 'default',
    body: { metadata: { name: 'api-key', labels: { 'gsp.dev/apikey': 'true' } }, stringData: { hash: 'h1' } },
  });
  t.equal(created.type, 'Opaque', 'type defaults to Opaque');
  t.same(created.data, { hash: Buffer.from('h1').toString('base64') }, 'stringData is folded into base64 data');
  t.equal(created.stringData, undefined, 'stringData is write-only');
  t.match(created.metadata, {
    name: 'api-key',
    namespace: 'default',
    uid: /^[0-9a-f-]{36}$/,
    resourceVersion: /^\d+$/,
  });
  t.ok(created.metadata?.creationTimestamp instanceof Date);

  const read = await core.readNamespacedSecret({ namespace: 'default', name: 'api-key' });
  t.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

  const replaced = await core.replaceNamespacedSecret({
    namespace: 'default',
    name: 'api-key',
    body: { ...read, data: { hash: Buffer.from('h2').toString('base64') } },
  });
  t.ok(
    Number(replaced.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion),
    'resourceVersion grows on update',
  );

  const patched = await core.patchNamespacedSecret(
    { namespace: 'default', name: 'api-key', body: { metadata: { labels: { owner: 'alice' } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  t.same(patched.metadata?.labels, { 'gsp.dev/apikey': 'true', owner: 'alice' });

  const jsonPatched = await core.patchNamespacedSecret({
    namespace: 'default',
    name: 'api-key',
    body: [{ op: 'remove', path: '/metadata/labels/owner' }],
  });
  t.same(jsonPatched.metadata?.labels, { 'gsp.dev/apikey': 'true' }, 'JSON patch is the default patch type');

  const deleted = (await core.deleteNamespacedSecret({ namespace: 'default', name: 'api-key' })) as unknown as {
    kind: string;
    status: string;
    details: object;
  };
  t.match(
    deleted,
    { kind: 'Status', status: 'Success', details: { name: 'api-key', kind: 'secrets', uid: created.metadata?.uid } },
    'a built-in kind answers delete with a Status',
  );
  t.equal((await apiError(() => core.readNamespacedSecret({ namespace: 'default', name: 'api-key' }))).code, 404);
});

t.test('custom objects (Agones fleets) can be created, listed, patched and deleted', async (t) => {
  const kube = await startForTest(t);
  const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const fleet = { group: 'agones.dev', version: 'v1', namespace: 'default', plural: 'fleets' };
  const created = (await custom.createNamespacedCustomObject({
    ...fleet,
    body: {
      apiVersion: 'agones.dev/v1',
      kind: 'Fleet',
      metadata: { name: 'lobby' },
      spec: { replicas: 0, template: { spec: {} } },
    },
  })) as { metadata: { generation: number; uid: string }; spec: { replicas: number } };
  t.equal(created.metadata.generation, 1);

  const list = (await custom.listNamespacedCustomObject(fleet)) as {
    kind: string;
    items: { metadata: { name: string } }[];
  };
  t.equal(list.kind, 'FleetList');
  t.same(
    list.items.map((i) => i.metadata.name),
    ['lobby'],
  );

  const patched = (await custom.patchNamespacedCustomObject(
    { ...fleet, name: 'lobby', body: { spec: { replicas: 0, scheduling: 'Distributed' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as { metadata: { generation: number }; spec: { scheduling: string } };
  t.equal(patched.spec.scheduling, 'Distributed');
  t.equal(patched.metadata.generation, 2, 'a spec change bumps generation');

  const strategic = await apiError(() =>
    custom.patchNamespacedCustomObject(
      { ...fleet, name: 'lobby', body: { spec: { replicas: 1 } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    ),
  );
  t.equal(strategic.code, 415, 'custom resources do not take strategic merge patches');

  const deleted = (await custom.deleteNamespacedCustomObject({ ...fleet, name: 'lobby' })) as {
    kind: string;
    metadata: { uid: string };
  };
  t.equal(deleted.kind, 'Fleet', 'a custom resource answers delete with the object');
  t.equal(deleted.metadata.uid, created.metadata.uid);
  t.equal((await apiError(() => custom.getNamespacedCustomObject({ ...fleet, name: 'lobby' }))).code, 404);
});

t.test('a missing object is a 404 NotFound Status', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const { code, body } = await apiError(() => core.readNamespacedSecret({ namespace: 'default', name: 'nope' }));
  t.equal(code, 404);
  t.match(body, {
    kind: 'Status',
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: 'secrets "nope" not found',
    details: { name: 'nope', kind: 'secrets' },
  });
  const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const gs = await apiError(() =>
    custom.getNamespacedCustomObject({
      group: 'agones.dev',
      version: 'v1',
      namespace: 'default',
      plural: 'gameservers',
      name: 'gone',
    }),
  );
  t.match(gs.body, {
    message: 'gameservers.agones.dev "gone" not found',
    details: { group: 'agones.dev', kind: 'gameservers' },
  });
});

t.test('creating in a namespace that does not exist is a 404 for the namespace', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const { code, body } = await apiError(() =>
    core.createNamespacedSecret({ namespace: 'missing', body: { metadata: { name: 's' } } }),
  );
  t.equal(code, 404);
  t.match(body, {
    reason: 'NotFound',
    message: 'namespaces "missing" not found',
    details: { name: 'missing', kind: 'namespaces' },
  });
});

t.test('creating an object twice is a 409 AlreadyExists', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dup' } } });
  const { code, body } = await apiError(() =>
    core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dup' } } }),
  );
  t.equal(code, 409);
  t.match(body, {
    reason: 'AlreadyExists',
    message: 'secrets "dup" already exists',
    details: { name: 'dup', kind: 'secrets' },
  });
});

t.test('replacing with a stale resourceVersion is a 409 Conflict', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const first = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'racy' } } });
  await core.replaceNamespacedSecret({ namespace: 'default', name: 'racy', body: { ...first, data: { a: 'YQ==' } } });
  const { code, body } = await apiError(() =>
    core.replaceNamespacedSecret({ namespace: 'default', name: 'racy', body: { ...first, data: { b: 'Yg==' } } }),
  );
  t.equal(code, 409);
  t.match(body, {
    reason: 'Conflict',
    message: /^Operation cannot be fulfilled on secrets "racy": the object has been modified/,
  });
});

t.test('an invalid name is a 422 Invalid with the field in its causes', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const { code, body } = await apiError(() =>
    core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'Not_Valid' } } }),
  );
  t.equal(code, 422);
  t.match(body, {
    reason: 'Invalid',
    message:
      /^Secret "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/,
    details: { name: 'Not_Valid', kind: 'Secret', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] },
  });
  const ns = await apiError(() => core.createNamespace({ body: { metadata: { name: 'has.dots' } } }));
  t.equal(ns.code, 422, 'namespace names are DNS-1123 labels');
});

t.test('secret data that is not base64 is a 400 BadRequest', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const { code, body } = await apiError(() =>
    core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'raw' }, data: { key: 'not base64!' } },
    }),
  );
  t.equal(code, 400);
  t.match(body, { reason: 'BadRequest', message: /illegal base64 data/ });
});

t.test('generateName creates a unique name', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const a = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { generateName: 'key-' } } });
  const b = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { generateName: 'key-' } } });
  t.match(a.metadata?.name, /^key-[a-z0-9]{5}$/);
  t.not(a.metadata?.name, b.metadata?.name);
});

t.test('a label-selected list returns only the matching objects', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const make = (name: string, labels: Record<string, string>): Promise<V1Secret> =>
    core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name, labels } } });
  await make('a', { 'gsp.dev/apikey': 'true', owner: 'alice' });
  await make('b', { 'gsp.dev/apikey': 'true', owner: 'bob' });
  await make('c', { 'gsp.dev/apikey': 'false' });
  await make('d', {});
  const names = async (labelSelector: string): Promise<string[]> =>
    ((await core.listNamespacedSecret({ namespace: 'default', labelSelector })).items ?? []).map(
      (s) => s.metadata?.name ?? '',
    );
  t.same(await names('gsp.dev/apikey=true'), ['a', 'b']);
  t.same(await names('gsp.dev/apikey=true,owner!=alice'), ['b']);
  t.same(await names('owner in (alice,carol)'), ['a']);
  t.same(await names('owner notin (alice)'), ['b', 'c', 'd']);
  t.same(await names('!owner'), ['c', 'd']);
  t.same(await names('gsp.dev/apikey'), ['a', 'b', 'c']);
  const fields = await core.listNamespacedSecret({ namespace: 'default', fieldSelector: 'metadata.name=c' });
  t.same(
    (fields.items ?? []).map((s) => s.metadata?.name),
    ['c'],
  );
  const bad = await apiError(() => core.listNamespacedSecret({ namespace: 'default', labelSelector: 'a in b' }));
  t.equal(bad.code, 400);
});

t.test('limit and continue page through a list', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  for (let i = 0; i < 5; i++)
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `cm-${i}` } } });
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await core.listNamespacedConfigMap({ namespace: 'default', limit: 2, _continue: token });
    seen.push(...(page.items ?? []).map((c) => c.metadata?.name ?? ''));
    token = page.metadata?._continue || undefined;
    if (token) t.equal(page.metadata?.remainingItemCount, 5 - seen.length);
    pages++;
  } while (token);
  t.equal(pages, 3);
  t.same(seen, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
});

t.test('an informer sees creates, updates and deletes, and survives its watch ending', async (t) => {
  const kube = await startForTest(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'keys' } } });
  await core.createNamespacedSecret({
    namespace: 'keys',
    body: { metadata: { name: 'before', labels: { 'gsp.dev/apikey': 'true' } } },
  });
  await core.createNamespacedSecret({ namespace: 'keys', body: { metadata: { name: 'unrelated' } } });

  const selector = 'gsp.dev/apikey=true';
  let lists = 0;
  const informer = makeInformer(
    kube.kubeConfig,
    '/api/v1/namespaces/keys/secrets',
    () => {
      lists++;
      return core.listNamespacedSecret({ namespace: 'keys', labelSelector: selector });
    },
    selector,
  );
  const events: string[] = [];
  informer.on('add', (s) => events.push(`add ${s.metadata?.name}`));
  informer.on('update', (s) => events.push(`update ${s.metadata?.name}`));
  informer.on('delete', (s) => events.push(`delete ${s.metadata?.name}`));
  const errors: unknown[] = [];
  informer.on('error', (err) => errors.push(err));
  await informer.start();
  t.teardown(() => informer.stop());
  await until(() => events.includes('add before'), 'the initial list');

  await core.createNamespacedSecret({
    namespace: 'keys',
    body: { metadata: { name: 'k1', labels: { 'gsp.dev/apikey': 'true' } } },
  });
  await until(() => events.includes('add k1'), 'add k1');
  await core.patchNamespacedSecret({
    namespace: 'keys',
    name: 'k1',
    body: [{ op: 'add', path: '/data', value: { x: 'eA==' } }],
  });
  await until(() => events.includes('update k1'), 'update k1');
  await core.deleteNamespacedSecret({ namespace: 'keys', name: 'k1' });
  await until(() => events.includes('delete k1'), 'delete k1');

  // The server ends the watch (as a timeout would); the informer resumes from its resourceVersion.
  kube.endWatches();
  await core.createNamespacedSecret({
    namespace: 'keys',
    body: { metadata: { name: 'k2', labels: { 'gsp.dev/apikey': 'true' } } },
  });
  await until(() => events.includes('add k2'), 'add k2 after the watch was restarted');
  t.equal(lists, 1, 'resuming the watch needs no new list');

  // History is gone: the resumed watch gets 410 Expired and the informer relists.
  kube.compactHistory();
  kube.endWatches();
  await core.deleteNamespacedSecret({ namespace: 'keys', name: 'before' });
  await core.createNamespacedSecret({
    namespace: 'keys',
    body: { metadata: { name: 'k3', labels: { 'gsp.dev/apikey': 'true' } } },
  });
  await until(
    () => events.includes('add k3') && events.includes('delete before'),
    'k3 and the deletion of "before" after a relist',
  );

  t.equal(lists, 2, 'the expired watch made the informer list again');
  t.notOk(
    events.some((e) => e.endsWith('unrelated')),
    'the label selector applies to the watch',
  );
  t.same(
    informer
      .list()
      .map((s) => s.metadata?.name)
      .sort(),
    ['k2', 'k3'],
  );
  t.same(errors, []);
});
