import t from 'tap';
import { kubectlOk, startForTest } from './helper.js';

interface Review {
  kind: string;
  apiVersion: string;
  status: { userInfo: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } };
}

t.test('kubectl auth whoami answers the admin, or the impersonated user as kube-apiserver does', async (t) => {
  const kube = await startForTest(t);

  await t.test('discovery lists authentication.k8s.io/v1 selfsubjectreviews', async (t) => {
    const listed = await kubectlOk(t, kube, ['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']);
    t.equal(listed.trim(), 'selfsubjectreviews.authentication.k8s.io');
  });

  await t.test('without impersonation: kube-lite admin', async (t) => {
    const review = JSON.parse(await kubectlOk(t, kube, ['auth', 'whoami', '-o', 'json'])) as Review;
    t.match(review, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    t.same(review.status.userInfo, { username: 'kube-lite-admin', groups: ['system:masters', 'system:authenticated'] });
    t.match(await kubectlOk(t, kube, ['auth', 'whoami']), /Username\s+kube-lite-admin/);
  });

  await t.test('with Impersonate-User, -Group, -Uid and -Extra (kubectl --as...)', async (t) => {
    const args = ['auth', 'whoami', '-o', 'json', '--as', 'alice', '--as-group', 'devs', '--as-group', 'ops'];
    const review = JSON.parse(await kubectlOk(t, kube, [...args, '--as-uid', 'u-1'])) as Review;
    t.same(review.status.userInfo, {
      username: 'alice',
      uid: 'u-1',
      groups: ['devs', 'ops', 'system:authenticated'],
    });
  });

  await t.test('a service account without groups gets its service-account groups', async (t) => {
    const out = await kubectlOk(t, kube, ['auth', 'whoami', '-o', 'json', '--as', 'system:serviceaccount:games:bot']);
    t.same((JSON.parse(out) as Review).status.userInfo.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:games',
      'system:authenticated',
    ]);
  });

  await t.test('extra keys are percent-decoded and lower-cased; groups without a user are refused', async (t) => {
    const post = (headers: Record<string, string>) =>
      fetch(`${kube.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
    const res = await post({ 'impersonate-user': 'bob', 'impersonate-extra-Scopes%2FTeam': 'blue' });
    t.equal(res.status, 201);
    t.same(((await res.json()) as Review).status.userInfo, {
      username: 'bob',
      groups: ['system:authenticated'],
      extra: { 'scopes/team': ['blue'] },
    });
    const refused = await post({ 'impersonate-group': 'devs' });
    t.equal(refused.status, 400);
    t.match(await refused.json(), { kind: 'Status', reason: 'BadRequest', message: /Impersonate-User/ });
    const get = await fetch(`${kube.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`);
    t.equal(get.status, 405, 'only create, as kube-apiserver');
  });
});
