import t from 'tap';
import { kubectl, kubectlOk, runningPod, startForTest, until } from './helper.js';

t.test('a pod log read with sinceSeconds leaves out older lines, after tailLines picked the last ones', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube, 'p', { name: 'c', image: 'i' });
  const log = async (query: string): Promise<string> =>
    (await fetch(`${kube.url}/api/v1/namespaces/default/pods/p/log?${query}`)).text();
  t.match(await log('sinceSeconds=60'), /container c started/, 'a recent line is in');
  // The start line ages past two seconds; the read itself says when.
  await until(
    async () => !(await log('sinceSeconds=2')).includes('container c started'),
    'the start line to be older than 2 s',
  );
  t.equal((await kubectl(kube, ['exec', 'p', '--', 'say', 'fresh'])).code, 0);
  t.equal(await log('sinceSeconds=2'), '[say] fresh\n', 'only the line of the last two seconds');
  t.notMatch(
    await kubectlOk(t, kube, ['logs', 'p', '--since=2s']),
    /container c started/,
    'kubectl logs --since sends sinceSeconds',
  );
  t.match(await kubectlOk(t, kube, ['logs', 'p']), /container c started/);
  t.equal(
    await log('tailLines=2&sinceSeconds=3600'),
    (await log('')).split('\n').slice(-3).join('\n'),
    'tailLines then sinceSeconds',
  );
  const invalid = await fetch(`${kube.url}/api/v1/namespaces/default/pods/p/log?sinceSeconds=0`);
  t.equal(invalid.status, 422);
  t.match(await invalid.json(), {
    kind: 'Status',
    reason: 'Invalid',
    message: /sinceSeconds: Invalid value: 0: must be greater than 0/,
  });
});
