import t from 'tap';
import { kubectl, kubectlOk, startForTest, until } from './helper.js';

interface Claim {
  spec: { dataSource?: Record<string, string>; dataSourceRef?: Record<string, string>; volumeName?: string };
  status: { phase: string };
}

interface Snapshot {
  status?: {
    readyToUse?: boolean;
    restoreSize?: string;
    creationTime?: string;
    error?: { message?: string; time?: string };
  };
}

const claim = (name: string, spec: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...spec },
  });
const snapshotOf = (name: string, source: string) =>
  JSON.stringify({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    metadata: { name },
    spec: { source: { persistentVolumeClaimName: source } },
  });
const fromSnapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'later' };

t.test('a snapshot reports when it was cut and its restore size, or why it could not be cut', async (t) => {
  const kube = await startForTest(t);
  await kubectlOk(t, kube, ['create', '-f', '-'], claim('world'));
  await until(
    async () => JSON.parse(await kubectlOk(t, kube, ['get', 'pvc', 'world', '-o', 'json'])).status.phase === 'Bound',
    'the claim to be Bound',
  );
  await kubectlOk(t, kube, ['create', '-f', '-'], snapshotOf('good', 'world'));
  await kubectlOk(t, kube, ['create', '-f', '-'], snapshotOf('orphan', 'missing'));
  const read = async (name: string) =>
    JSON.parse(await kubectlOk(t, kube, ['get', 'volumesnapshot', name, '-o', 'json'])) as Snapshot;
  const good = await until(
    async () => ((await read('good')).status?.readyToUse ? read('good') : undefined),
    'the snapshot to be ready',
  );
  t.equal(good.status?.restoreSize, '2Gi');
  t.ok(Date.parse(good.status?.creationTime ?? '') > 0, 'creationTime is a time');
  const orphan = await until(
    async () => ((await read('orphan')).status?.error ? read('orphan') : undefined),
    'the error',
  );
  t.equal(orphan.status?.readyToUse, false);
  t.match(orphan.status?.error?.message, 'persistentvolumeclaims "missing" not found');
});

t.test(
  'a claim restored from a VolumeSnapshot keeps its dataSource, gains the same dataSourceRef, ' +
    'and binds once the snapshot is ready',
  async (t) => {
    const kube = await startForTest(t);
    await kubectlOk(t, kube, ['create', '-f', '-'], claim('world'));
    await kubectlOk(t, kube, ['create', '-f', '-'], claim('restored', { dataSource: fromSnapshot }));
    const restored = async () =>
      JSON.parse(await kubectlOk(t, kube, ['get', 'pvc', 'restored', '-o', 'json'])) as Claim;
    const first = await restored();
    t.same(first.spec.dataSource, fromSnapshot);
    t.same(first.spec.dataSourceRef, fromSnapshot, 'mirrored into dataSourceRef, as the API server does');
    await until(
      async () => JSON.parse(await kubectlOk(t, kube, ['get', 'pvc', 'world', '-o', 'json'])).status.phase === 'Bound',
      'the source claim to be Bound',
    );
    t.equal((await restored()).status.phase, 'Pending', 'no volume while the snapshot does not exist');

    await kubectlOk(t, kube, ['create', '-f', '-'], snapshotOf('later', 'world'));
    const bound = await until(async () => {
      const now = await restored();
      return now.status.phase === 'Bound' && now;
    }, 'the restored claim to be Bound');
    t.match(bound.spec.volumeName, /^pvc-/);
  },
);

t.test('a claim given only a dataSourceRef gets the same dataSource', async (t) => {
  const kube = await startForTest(t);
  await kubectlOk(t, kube, ['create', '-f', '-'], claim('by-ref', { dataSourceRef: fromSnapshot }));
  const read = JSON.parse(await kubectlOk(t, kube, ['get', 'pvc', 'by-ref', '-o', 'json'])) as Claim;
  t.same(read.spec.dataSource, fromSnapshot);
});

t.test(
  'a dataSource is refused as the API server refuses it: ' +
    'a kind without its group, a missing name, a dataSourceRef that differs',
  async (t) => {
    const kube = await startForTest(t);
    const noGroup = await kubectl(
      kube,
      ['create', '-f', '-'],
      claim('no-group', { dataSource: { kind: 'VolumeSnapshot', name: 'x' } }),
    );
    t.equal(noGroup.code, 1);
    t.match(
      noGroup.stderr,
      'spec.dataSource: Invalid value: "VolumeSnapshot": ' +
        "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
    );
    const noName = await kubectl(
      kube,
      ['create', '-f', '-'],
      claim('no-name', { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot' } }),
    );
    t.match(noName.stderr, 'spec.dataSource.name: Required value');
    const differs = await kubectl(
      kube,
      ['create', '-f', '-'],
      claim('differs', { dataSource: fromSnapshot, dataSourceRef: { ...fromSnapshot, name: 'other' } }),
    );
    t.match(differs.stderr, 'must match dataSourceRef');
    t.equal((await kubectl(kube, ['get', 'pvc', '-o', 'name'])).stdout, '', 'none was created');
    const otherClaim = await kubectl(
      kube,
      ['create', '-f', '-'],
      claim('clone', { dataSource: { kind: 'PersistentVolumeClaim', name: 'world' } }),
    );
    t.equal(otherClaim.code, 0, `a claim cloned from a claim needs no group: ${otherClaim.stderr}`);
  },
);
