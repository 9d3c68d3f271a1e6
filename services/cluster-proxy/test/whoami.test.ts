import t from 'tap';
import { kubectl, OPERATOR, startStack, until } from './stack.js';

interface Review {
  status: { userInfo: { username: string; groups: string[] } };
}

t.test('kubectl auth whoami through the proxy and the tunnel names the tenant member', async (t) => {
  const stack = await startStack(t);
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const kubeconfig = await cluster!.kubeconfig();

  const res = await kubectl(kubeconfig, ['auth', 'whoami', '-o', 'json']);
  t.equal(res.code, 0, res.stderr);
  t.same((JSON.parse(res.stdout) as Review).status.userInfo, { username: OPERATOR, groups: ['system:authenticated'] });

  const table = await kubectl(kubeconfig, ['auth', 'whoami']);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, new RegExp(`Username\\s+${OPERATOR}\\n`));

  // The caller's own impersonation headers are dropped: the member cannot become someone else.
  const as = await kubectl(kubeconfig, [
    'auth',
    'whoami',
    '-o',
    'json',
    '--as',
    'admin',
    '--as-group',
    'system:masters',
  ]);
  t.equal(as.code, 0, as.stderr);
  t.same((JSON.parse(as.stdout) as Review).status.userInfo, { username: OPERATOR, groups: ['system:authenticated'] });
});
