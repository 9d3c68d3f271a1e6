import t from 'tap';
import { rawWatch, request, startForTest, until } from './helper.js';

const secrets = '/api/v1/namespaces/default/secrets';
const secret = (name: string, labels: Record<string, string> = {}): object => ({ metadata: { name, labels } });

t.test('a watch streams ADDED, MODIFIED and DELETED events', async (t) => {
  const kube = await startForTest(t);
  const list = await request<{ metadata: { resourceVersion: string } }>(kube, 'GET', secrets);
  const watch = rawWatch(t, kube, `${secrets}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  await request(kube, 'POST', secrets, secret('w1'));
  await request(kube, 'PATCH', `${secrets}/w1`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
  await request(kube, 'DELETE', `${secrets}/w1`);
  await until(() => watch.events.length === 3, 'three events');
  t.same(
    watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`),
    ['ADDED w1', 'MODIFIED w1', 'DELETED w1'],
  );
  const versions = watch.events.map((e) => Number(e.object.metadata?.resourceVersion));
  t.ok(versions[0]! < versions[1]! && versions[1]! < versions[2]!, 'every event carries a newer resourceVersion');
});

t.test('a watch without a resourceVersion starts with the current objects as ADDED', async (t) => {
  const kube = await startForTest(t);
  await request(kube, 'POST', secrets, secret('existing'));
  const watch = rawWatch(t, kube, `${secrets}?watch=true`);
  await until(() => watch.events.length === 1, 'the synthetic ADDED');
  t.match(watch.events[0], { type: 'ADDED', object: { kind: 'Secret', metadata: { name: 'existing' } } });
});

t.test('a watch resumes after a resourceVersion and sends only later events', async (t) => {
  const kube = await startForTest(t);
  const first = await request<{ metadata: { resourceVersion: string } }>(kube, 'POST', secrets, secret('r1'));
  await request(kube, 'POST', secrets, secret('r2'));
  await request(kube, 'POST', secrets, secret('r3'));
  const watch = rawWatch(t, kube, `${secrets}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`);
  await until(() => watch.events.length === 2, 'the two later events');
  t.same(
    watch.events.map((e) => e.object.metadata?.name),
    ['r2', 'r3'],
  );
});

t.test('a watch from a resourceVersion older than the history gets 410 Expired', async (t) => {
  const kube = await startForTest(t);
  const first = await request<{ metadata: { resourceVersion: string } }>(kube, 'POST', secrets, secret('old'));
  kube.compactHistory();
  const watch = rawWatch(t, kube, `${secrets}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`);
  await until(() => watch.ended(), 'the server to end the watch');
  t.equal(watch.events.length, 1);
  t.match(watch.events[0], {
    type: 'ERROR',
    object: { kind: 'Status', code: 410, reason: 'Expired', message: /^too old resource version/ },
  });
});

t.test('a watch that allows bookmarks receives them with the current resourceVersion', async (t) => {
  const kube = await startForTest(t, { bookmarkIntervalMs: 50 });
  const list = await request<{ metadata: { resourceVersion: string } }>(kube, 'GET', secrets);
  const watch = rawWatch(
    t,
    kube,
    `${secrets}?watch=1&allowWatchBookmarks=true&resourceVersion=${list.body.metadata.resourceVersion}`,
  );
  await request(kube, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'elsewhere' } });
  await until(
    () =>
      watch.events.find(
        (e) => e.type === 'BOOKMARK' && Number(e.object.metadata?.resourceVersion) >= kube.resourceVersion(),
      ),
    'a bookmark',
  );
  const bookmark = watch.events.find((e) => e.type === 'BOOKMARK');
  t.match(bookmark?.object, { kind: 'Secret', apiVersion: 'v1' });
});

t.test('sendInitialEvents ends the initial objects with a marked bookmark', async (t) => {
  const kube = await startForTest(t);
  await request(kube, 'POST', secrets, secret('s1'));
  const watch = rawWatch(
    t,
    kube,
    `${secrets}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
  );
  await until(() => watch.events.length >= 2, 'initial events');
  t.match(watch.events[0], { type: 'ADDED', object: { metadata: { name: 's1' } } });
  t.match(watch.events[1], {
    type: 'BOOKMARK',
    object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } },
  });
});

t.test('a label-selected watch sees an object leave and enter the selection', async (t) => {
  const kube = await startForTest(t);
  await request(kube, 'POST', secrets, secret('k', { 'gsp.dev/apikey': 'true' }));
  const watch = rawWatch(t, kube, `${secrets}?watch=1&labelSelector=${encodeURIComponent('gsp.dev/apikey=true')}`);
  await until(() => watch.events.length === 1, 'the initial ADDED');
  const label = (value: string): Promise<unknown> =>
    request(
      kube,
      'PATCH',
      `${secrets}/k`,
      { metadata: { labels: { 'gsp.dev/apikey': value } } },
      'application/merge-patch+json',
    );
  await label('false');
  await label('true');
  await until(() => watch.events.length === 3, 'two more events');
  t.same(
    watch.events.map((e) => e.type),
    ['ADDED', 'DELETED', 'ADDED'],
  );
});

t.test('a watch ends after timeoutSeconds', async (t) => {
  const kube = await startForTest(t);
  const watch = rawWatch(t, kube, `${secrets}?watch=1&timeoutSeconds=1`);
  await until(() => watch.ended(), 'the watch to end', 3000);
  t.pass('ended');
});
