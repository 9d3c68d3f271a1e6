import t from 'tap';
import { kubectl, kubectlOk, request, startForTest } from './helper.js';

/** The rows of a `kubectl get` table, header first, split on runs of spaces. */
function rows(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

const backend = { service: { name: 'web', port: { name: 'http' } } };
const path = (p: string): object => ({ path: p, pathType: 'Prefix', backend });

const ingress = (name: string, spec: object): object => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, namespace: 'default' },
  spec,
});

t.test('kubectl get ingress prints class, hosts, address and ports as a cluster does', async (t) => {
  const kube = await startForTest(t);
  const objects = [
    ingress('web', {
      ingressClassName: 'nginx',
      rules: [{ host: 'a.example.com', http: { paths: [path('/')] } }],
      tls: [{ hosts: ['a.example.com'], secretName: 'a-tls' }],
    }),
    ingress('catch-all', { rules: [{ http: { paths: [path('/')] } }] }),
    ingress('many', {
      rules: ['a', 'b', 'c', 'd', 'e'].map((h) => ({ host: `${h}.example.com`, http: { paths: [path('/')] } })),
    }),
  ];
  t.match(
    await kubectlOk(t, kube, ['apply', '-f', '-'], objects.map((o) => JSON.stringify(o)).join('\n---\n')),
    'ingress.networking.k8s.io/web created',
  );
  await kubectlOk(t, kube, [
    'patch',
    'ingress',
    'web',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}',
  ]);
  const table = rows(await kubectlOk(t, kube, ['get', 'ing']));
  t.same(table[0], ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
  t.match(table.slice(1), [
    ['catch-all', '<none>', '*', '80', /^\d+s$/],
    ['many', '<none>', 'a.example.com,b.example.com,c.example.com + 2 more...', '80', /^\d+s$/],
    ['web', 'nginx', 'a.example.com', '203.0.113.7', '80, 443', /^\d+s$/],
  ]);
  t.equal(
    await kubectlOk(t, kube, ['get', 'ingress', 'web', '-o', 'jsonpath={.spec.rules[0].http.paths[0].backend}']),
    JSON.stringify(backend),
    'the backend is stored as written',
  );
});

t.test(
  'a NetworkPolicy, an HTTPRoute, a ServiceMonitor and a PrometheusRule are stored and listed like their kinds',
  async (t) => {
    const kube = await startForTest(t);
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'web', namespace: 'default' },
        spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
      },
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: 'web', namespace: 'default' },
        spec: { parentRefs: [{ name: 'gw' }], hostnames: ['a.example.com'] },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: { name: 'web', namespace: 'default' },
        spec: { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'metrics' }] },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: { name: 'web', namespace: 'default' },
        spec: { groups: [{ name: 'web', rules: [{ alert: 'Down', expr: 'up == 0' }] }] },
      },
    ];
    await kubectlOk(t, kube, ['apply', '-f', '-'], objects.map((o) => JSON.stringify(o)).join('\n---\n'));
    t.match(rows(await kubectlOk(t, kube, ['get', 'netpol'])), [
      ['NAME', 'POD-SELECTOR', 'AGE'],
      ['web', 'app=web', /^\d+s$/],
    ]);
    t.match(rows(await kubectlOk(t, kube, ['get', 'httproute'])), [
      ['NAME', 'HOSTNAMES', 'AGE'],
      ['web', '["a.example.com"]', /^\d+s$/],
    ]);
    for (const kind of ['smon', 'promrule'])
      t.match(
        rows(await kubectlOk(t, kube, ['get', kind])),
        [
          ['NAME', 'AGE'],
          ['web', /^\d+s$/],
        ],
        kind,
      );

    const groups = (await request<{ groups: { name: string }[] }>(kube, 'GET', '/apis')).body.groups.map((g) => g.name);
    t.ok(groups.indexOf('networking.k8s.io') < groups.indexOf('policy'), 'networking.k8s.io comes before policy');
    const strategic = await kubectl(kube, ['patch', 'httproute', 'web', '--type=strategic', '-p', '{"spec":{}}']);
    t.not(strategic.code, 0, 'a custom kind refuses a strategic merge patch, as one from a CRD does');
    t.match(strategic.stderr, /UnsupportedMediaType|415|not supported/i);
  },
);
