import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubectl, kubectlOk, request, runningPod, startForTest, until } from './helper.js';

interface ResourceList {
  kind: string;
  groupVersion: string;
  resources: {
    name: string;
    singularName: string;
    namespaced: boolean;
    kind: string;
    verbs: string[];
    shortNames?: string[];
  }[];
}

t.test('discovery lists every group, version and resource with its verbs, scope and short names', async (t) => {
  const kube = await startForTest(t);
  t.match((await request(kube, 'GET', '/api')).body, { kind: 'APIVersions', versions: ['v1'] });
  const groups = (
    await request<{ kind: string; groups: { name: string; preferredVersion: { groupVersion: string } }[] }>(
      kube,
      'GET',
      '/apis',
    )
  ).body;
  t.equal(groups.kind, 'APIGroupList');
  t.same(
    groups.groups.map((g) => g.preferredVersion.groupVersion),
    [
      'apps/v1',
      'networking.k8s.io/v1',
      'policy/v1',
      'rbac.authorization.k8s.io/v1',
      'agones.dev/v1',
      'allocation.agones.dev/v1',
      'snapshot.storage.k8s.io/v1',
      'gateway.networking.k8s.io/v1',
      'monitoring.coreos.com/v1',
      'authentication.k8s.io/v1',
    ],
  );
  t.match((await request(kube, 'GET', '/apis/agones.dev')).body, {
    kind: 'APIGroup',
    name: 'agones.dev',
    versions: [{ groupVersion: 'agones.dev/v1', version: 'v1' }],
  });

  const core = (await request<ResourceList>(kube, 'GET', '/api/v1')).body;
  t.equal(core.kind, 'APIResourceList');
  const byName = new Map(core.resources.map((r) => [r.name, r]));
  t.match(byName.get('secrets'), {
    singularName: 'secret',
    namespaced: true,
    kind: 'Secret',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  });
  t.match(byName.get('namespaces'), { namespaced: false, kind: 'Namespace', shortNames: ['ns'] });
  t.match(byName.get('pods/exec'), { kind: 'PodExecOptions', verbs: ['create', 'get'] });
  t.match(byName.get('pods/log'), { kind: 'Pod', verbs: ['get'] });
  for (const name of ['configmaps', 'pods', 'persistentvolumeclaims', 'services']) t.ok(byName.has(name), name);
  t.match(byName.get('serviceaccounts'), {
    singularName: 'serviceaccount',
    namespaced: true,
    kind: 'ServiceAccount',
    shortNames: ['sa'],
  });

  const apps = (await request<ResourceList>(kube, 'GET', '/apis/apps/v1')).body;
  t.match(
    apps.resources.find((r) => r.name === 'deployments'),
    { kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'] },
  );
  t.match(
    apps.resources.find((r) => r.name === 'deployments/scale'),
    { kind: 'Scale', group: 'autoscaling', version: 'v1' },
  );
  t.match(
    apps.resources.find((r) => r.name === 'deployments/status'),
    { kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
  );
  const rbac = (await request<ResourceList>(kube, 'GET', '/apis/rbac.authorization.k8s.io/v1')).body;
  t.same(
    rbac.resources.map((r) => [r.name, r.namespaced]),
    [
      ['roles', true],
      ['rolebindings', true],
      ['clusterroles', false],
      ['clusterrolebindings', false],
    ],
  );

  const agones = (await request<ResourceList>(kube, 'GET', '/apis/agones.dev/v1')).body;
  t.match(
    agones.resources.find((r) => r.name === 'gameservers'),
    { kind: 'GameServer', namespaced: true, shortNames: ['gs'] },
  );
  t.match(
    agones.resources.find((r) => r.name === 'fleets/scale'),
    { kind: 'Scale', group: 'autoscaling', version: 'v1' },
  );
  const allocation = (await request<ResourceList>(kube, 'GET', '/apis/allocation.agones.dev/v1')).body;
  t.same(
    allocation.resources.find((r) => r.name === 'gameserverallocations')?.verbs,
    ['create'],
    'allocations can only be created',
  );
  const snapshots = (await request<ResourceList>(kube, 'GET', '/apis/snapshot.storage.k8s.io/v1')).body;
  t.match(snapshots.resources[0], { name: 'volumesnapshots', kind: 'VolumeSnapshot', shortNames: ['vs'] });
  t.match((await request(kube, 'GET', '/version')).body, { major: '1', minor: '35' });
});

t.test('/openapi/v2 is served as the API server serves it: JSON, or protobuf for kubectl', async (t) => {
  const kube = await startForTest(t);
  const get = (accept?: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${kube.url}/openapi/v2`, { headers: accept === undefined ? headers : { Accept: accept, ...headers } });

  const json = await get('application/json');
  t.equal(json.headers.get('content-type'), 'application/json');
  t.equal(json.headers.get('vary'), 'Accept');
  const doc = (await json.json()) as {
    swagger: string;
    paths: Record<
      string,
      Record<string, { parameters?: { name: string; in: string }[]; 'x-kubernetes-group-version-kind'?: object }>
    >;
    definitions: Record<string, Record<string, unknown>>;
  };
  t.equal(doc.swagger, '2.0');
  // As the API server publishes a schema that keeps unknown fields: no properties, so kubectl accepts any field.
  t.same(doc.definitions['io.k8s.api.core.v1.Secret'], {
    type: 'object',
    description: 'Secret as served by kube-lite.',
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Secret' }],
  });
  t.ok(doc.definitions['dev.agones.v1.GameServer'], 'custom resources are described too');
  const patch = doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}']?.patch;
  t.same(patch?.['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Secret' });
  t.ok(
    patch?.parameters?.some((p) => p.name === 'fieldValidation' && p.in === 'query'),
    'PATCH takes fieldValidation',
  );
  t.equal((await get(undefined)).headers.get('content-type'), 'application/json', 'JSON without an Accept header');

  // client-go asks with the deprecated "@" spelling and gets the protobuf type back.
  const proto = await get('application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
  t.equal(proto.status, 200);
  t.equal(proto.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  const bytes = Buffer.from(await proto.arrayBuffer());
  t.same([...bytes.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30], 'Document.swagger (field 1) is "2.0"');
  t.equal(
    proto.headers.get('etag'),
    json.headers.get('etag'),
    'one ETag for both encodings, as kube-openapi computes it from the JSON',
  );
  t.equal((await get('application/json', { 'If-None-Match': json.headers.get('etag') ?? '' })).status, 304);
  t.equal((await get('text/html')).status, 406);

  // kubectl decodes it: explain's OpenAPI v2 output reads the kind's description from it.
  const explained = await kubectlOk(t, kube, ['explain', 'secrets', '--output=plaintext-openapiv2']);
  t.match(explained, /KIND:\s+Secret\s+VERSION:\s+v1\s+DESCRIPTION:\s+Secret as served by kube-lite\./);
});

t.test('kubectl api-resources shows the served resources', async (t) => {
  const kube = await startForTest(t);
  const out = await kubectlOk(t, kube, ['api-resources']);
  t.match(out, /gameservers\s+gs\s+agones\.dev\/v1\s+true\s+GameServer/);
  t.match(out, /volumesnapshots\s+vs\s+snapshot\.storage\.k8s\.io\/v1\s+true\s+VolumeSnapshot/);
});

t.test('a configured token is required; without one any request is accepted', async (t) => {
  const kube = await startForTest(t, { token: 's3cret' });
  const denied = await request(kube, 'GET', '/api/v1/namespaces');
  t.equal(denied.status, 401);
  t.match(denied.body, { kind: 'Status', reason: 'Unauthorized', code: 401 });
  const wrong = await request(kube, 'GET', '/api/v1/namespaces', undefined, 'application/json', {
    Authorization: 'Bearer nope',
  });
  t.equal(wrong.status, 401);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  t.ok((await core.listNamespace()).items.length > 0, 'the generated kubeconfig carries the token');
  // kubectl only sends credentials over TLS, so a token-protected kube-lite for kubectl uses tls too.
  const secured = await startForTest(t, { token: 's3cret', tls: true });
  t.match(await kubectlOk(t, secured, ['get', 'ns', 'default', '-o', 'name']), 'namespace/default');

  const open = await startForTest(t);
  t.equal(
    (
      await request(open, 'GET', '/api/v1/namespaces', undefined, 'application/json', {
        Authorization: 'Bearer whatever',
      })
    ).status,
    200,
  );
});

t.test('with tls the server speaks HTTPS with a certificate the kubeconfig trusts', async (t) => {
  const kube = await startForTest(t, { tls: true });
  t.match(kube.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  t.ok((await core.listNamespace()).items.some((n) => n.metadata?.name === 'kube-system'));
  t.match(await kubectlOk(t, kube, ['get', 'namespaces']), /kube-system\s+Active/);
});

t.test('tables are served when a client asks for them', async (t) => {
  const kube = await startForTest(t);
  await request(kube, 'POST', '/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'cfg' },
    data: { a: '1', b: '2' },
  });
  const table = await request(kube, 'GET', '/api/v1/namespaces/default/configmaps', undefined, 'application/json', {
    Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  t.match(table.body, {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    columnDefinitions: [{ name: 'Name', format: 'name' }, { name: 'Data' }, { name: 'Age' }],
    rows: [{ cells: ['cfg', 2, /^\d+s$/], object: { kind: 'PartialObjectMetadata', metadata: { name: 'cfg' } } }],
  });
});

t.test('strategic merge patch merges containers by name', async (t) => {
  const kube = await startForTest(t);
  const pods = '/api/v1/namespaces/default/pods';
  await request(kube, 'POST', pods, {
    metadata: { name: 'p' },
    spec: {
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:1' },
      ],
    },
  });
  const patched = await request<{ spec: { containers: { name: string; image: string }[] } }>(
    kube,
    'PATCH',
    `${pods}/p`,
    { spec: { containers: [{ name: 'b', image: 'b:2' }] } },
    'application/strategic-merge-patch+json',
  );
  t.equal(patched.status, 200);
  t.same(patched.body.spec.containers, [
    { name: 'a', image: 'a:1' },
    { name: 'b', image: 'b:2' },
  ]);
  const merged = await request<{ spec: { containers: unknown[] } }>(
    kube,
    'PATCH',
    `${pods}/p`,
    { spec: { containers: [{ name: 'c', image: 'c:1' }] } },
    'application/merge-patch+json',
  );
  t.equal(merged.body.spec.containers.length, 1, 'a JSON merge patch replaces lists');
});

t.test('a failed JSON patch test operation changes nothing', async (t) => {
  const kube = await startForTest(t);
  const cms = '/api/v1/namespaces/default/configmaps';
  await request(kube, 'POST', cms, { metadata: { name: 'c' }, data: { a: '1' } });
  const res = await request(
    kube,
    'PATCH',
    `${cms}/c`,
    [
      { op: 'replace', path: '/data/a', value: '2' },
      { op: 'test', path: '/data/a', value: '3' },
    ],
    'application/json-patch+json',
  );
  t.equal(res.status, 422);
  t.match((await request(kube, 'GET', `${cms}/c`)).body, { data: { a: '1' } });
});

t.test('dry run validates without storing', async (t) => {
  const kube = await startForTest(t);
  const res = await request(kube, 'POST', '/api/v1/namespaces/default/secrets?dryRun=All', {
    metadata: { name: 'dry' },
  });
  t.equal(res.status, 201);
  t.equal((await request(kube, 'GET', '/api/v1/namespaces/default/secrets/dry')).status, 404);
});

t.test('deleting a namespace deletes everything in it', async (t) => {
  // Terminating lasts a step: long enough here that the create below is surely refused, not too late.
  const kube = await startForTest(t, { stepMs: 1500 });
  await kubectlOk(t, kube, ['create', 'namespace', 'doomed']);
  await kubectlOk(t, kube, ['-n', 'doomed', 'create', 'configmap', 'c', '--from-literal=a=b']);
  const answer = await request(kube, 'DELETE', '/api/v1/namespaces/doomed');
  t.match(answer.body, { kind: 'Namespace', status: { phase: 'Terminating' } });
  const blocked = await request(kube, 'POST', '/api/v1/namespaces/doomed/secrets', { metadata: { name: 'late' } });
  t.match(blocked, { status: 403, body: { reason: 'Forbidden' } });
  await until(
    async () => (await request(kube, 'GET', '/api/v1/namespaces/doomed')).status === 404,
    'the namespace to go',
  );
  t.equal((await request(kube, 'GET', '/api/v1/namespaces/doomed/configmaps/c')).status, 404);
});

t.test('deletecollection deletes what the selector matches', async (t) => {
  const kube = await startForTest(t);
  for (const [name, tier] of [
    ['a', 'x'],
    ['b', 'x'],
    ['c', 'y'],
  ]) {
    await request(kube, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name, labels: { tier } } });
  }
  const res = await request<{ items: { metadata: { name: string } }[] }>(
    kube,
    'DELETE',
    '/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dx',
  );
  t.same(
    res.body.items.map((i) => i.metadata.name),
    ['a', 'b'],
  );
  t.match(await kubectlOk(t, kube, ['get', 'configmaps', '-o', 'name']), /^configmap\/c\n$/);
});

t.test('pod logs can be followed', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube, 'p', { name: 'c', image: 'i' });
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const res = await fetch(`${kube.url}/api/v1/namespaces/default/pods/p/log?follow=true`, {
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value);
    }
  })().catch(() => undefined);
  await until(() => text.includes('container c started'), 'the start line');
  const run = await kubectl(kube, ['exec', 'p', '--', 'say', 'followed']);
  t.equal(run.code, 0);
  await until(() => text.includes('[say] followed'), 'the new line to arrive on the open stream');
  controller.abort();
  await pump;
});

t.test('claims are bound and snapshots of them become ready to use', async (t) => {
  const kube = await startForTest(t);
  await request(kube, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', {
    metadata: { name: 'world' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
  });
  await request(kube, 'POST', '/apis/snapshot.storage.k8s.io/v1/namespaces/default/volumesnapshots', {
    metadata: { name: 'world-snap' },
    spec: { source: { persistentVolumeClaimName: 'world' } },
  });
  await until(
    async () =>
      (
        await request<{ status: { phase: string } }>(
          kube,
          'GET',
          '/api/v1/namespaces/default/persistentvolumeclaims/world',
        )
      ).body.status.phase === 'Bound',
    'Bound',
  );
  const snapshot = await until(async () => {
    const res = await request<{ status: { readyToUse: boolean; restoreSize: string } }>(
      kube,
      'GET',
      '/apis/snapshot.storage.k8s.io/v1/namespaces/default/volumesnapshots/world-snap',
    );
    return res.body.status.readyToUse && res.body;
  }, 'readyToUse');
  t.equal(snapshot.status.restoreSize, '5Gi');
  t.match(await kubectlOk(t, kube, ['get', 'pvc']), /world\s+Bound\s+pvc-[0-9a-f-]+\s+5Gi\s+RWO/);
});

t.test('unknown paths are 404 and unknown methods are 405', async (t) => {
  const kube = await startForTest(t);
  t.equal((await request(kube, 'GET', '/apis/example.com/v1/widgets')).status, 404);
  t.equal((await request(kube, 'PUT', '/api/v1/namespaces/default/secrets')).status, 405);
  const allocations = await request(
    kube,
    'GET',
    '/apis/allocation.agones.dev/v1/namespaces/default/gameserverallocations',
  );
  t.match(allocations, { status: 405, body: { reason: 'MethodNotAllowed' } });
});

t.test('a path with an escape that is not UTF-8 names no resource: 404, not a 500', async (t) => {
  const kube = await startForTest(t);
  for (const path of ['/api/v1/namespaces/%FF%FE/pods', '/api/v1/namespaces/default/pods/%C0%AF']) {
    const res = await fetch(`${kube.url}${path}`);
    t.equal(res.status, 404, path);
  }
});
