import { execFile } from 'node:child_process';
import t from 'tap';
import { findKubectl, startKubeLite } from '@gsp/kube-lite';
import { chartDir, helmIn, valuesArgs } from './render.js';
import { hardened, merged, secrets } from './values.js';

interface Deployed {
  metadata: { name: string; generation: number };
  spec: {
    replicas: number;
    template: {
      spec: { serviceAccountName?: string; containers: { name: string; env?: { name: string; value?: string }[] }[] };
    };
  };
}

/**
 * Each chart exposed and hardened (values.ts `hardened`): Ingress with TLS, NetworkPolicies, topology spread, the
 * Prometheus Operator's objects; the control plane also behind an HTTPRoute, as while moving to a Gateway.
 */
const installed: Record<string, Record<string, unknown>> = {
  ...hardened,
  'control-plane': merged(hardened['control-plane']!, {
    httpRoute: {
      enabled: true,
      parentRefs: [{ name: 'public', namespace: 'gateway-system', sectionName: 'https' }],
      hostnames: ['cp.example.com'],
    },
  }),
};

t.test('helm installs, upgrades and uninstalls all three charts on a Kubernetes API', async (t) => {
  const kube = await startKubeLite({ port: 0 });
  t.teardown(() => kube.close());
  const kubectlBinary = findKubectl({ searchPath: false });
  const kubectl = (args: string[], input?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = execFile(
        kubectlBinary,
        ['--kubeconfig', kube.kubeconfigPath, ...args],
        { timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  const helm = helmIn(kube.kubeconfigPath);
  t.teardown(() => helm.close());

  // What the operator creates first: namespaces and the Secrets the values name.
  for (const namespace of ['gsp', 'gsp-agent']) await kubectl(['create', 'namespace', namespace]);
  const secretList = Object.entries(secrets).flatMap(([name, data]) =>
    ['gsp', 'gsp-agent'].map((namespace) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      stringData: data,
    })),
  );
  await kubectl(['apply', '-f', '-'], secretList.map((secret) => JSON.stringify(secret)).join('\n---\n'));

  const releases: [string, string, string][] = [
    ['gsp', 'platform', 'gsp'],
    ['gsp-control-plane', 'control-plane', 'gsp'],
    ['gsp', 'tunnel-agent', 'gsp-agent'],
  ];
  for (const [release, chart, namespace] of releases) {
    const install = await helm.run([
      'install',
      release,
      chartDir(chart),
      '--namespace',
      namespace,
      ...valuesArgs(installed[chart]!),
    ]);
    t.equal(install.code, 0, `helm install ${chart}: ${install.stderr}`);
    t.match(install.stdout, 'STATUS: deployed');
  }

  const deploymentsIn = async (namespace: string): Promise<Deployed[]> =>
    (JSON.parse(await kubectl(['get', 'deployments', '-n', namespace, '-o', 'json'])) as { items: Deployed[] }).items;
  const gsp = await deploymentsIn('gsp');
  t.same(gsp.map((d) => d.metadata.name).sort(), [
    'gsp-control-plane',
    'gsp-platform-api-server',
    'gsp-platform-cluster-proxy',
  ]);
  t.same(
    (await deploymentsIn('gsp-agent')).map((d) => [d.metadata.name, d.spec.replicas]),
    [['gsp-tunnel-agent', 1]],
  );

  // The objects the pods rely on exist under the names the pods use.
  const controlPlane = gsp.find((d) => d.metadata.name === 'gsp-control-plane')!;
  const spool = JSON.parse(
    await kubectl([
      'get',
      'deployment',
      'gsp-control-plane',
      '-n',
      'gsp',
      '-o',
      'jsonpath={.spec.template.spec.volumes[?(@.name=="audit-spool")]}',
    ]),
  ) as { emptyDir?: { sizeLimit?: string } };
  t.ok(spool.emptyDir?.sizeLimit, "the control plane's audit spool is stored as a bounded emptyDir");
  const account = controlPlane.spec.template.spec.serviceAccountName!;
  t.equal(
    (await kubectl(['get', 'serviceaccount', account, '-n', 'gsp', '-o', 'name'])).trim(),
    `serviceaccount/${account}`,
  );
  const binding = JSON.parse(
    await kubectl(['get', 'rolebinding', 'gsp-control-plane-apikeys', '-n', 'gsp', '-o', 'json']),
  ) as { subjects: { name: string }[]; roleRef: { name: string } };
  t.same(
    binding.subjects.map((s) => s.name),
    [account],
    "the API-key Role is bound to the control plane's ServiceAccount",
  );
  const role = JSON.parse(await kubectl(['get', 'role', binding.roleRef.name, '-n', 'gsp', '-o', 'json'])) as {
    rules: { resources: string[]; verbs: string[] }[];
  };
  t.same(role.rules, [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
  ]);
  const agones = JSON.parse(
    await kubectl(['get', 'clusterrolebinding', 'gsp-gsp-control-plane-agones', '-o', 'json']),
  ) as { subjects: { name: string; namespace: string }[]; roleRef: { name: string } };
  t.same(
    agones.subjects.map((s) => `${s.namespace}/${s.name}`),
    [`gsp/${account}`],
    'the control plane manages Agones objects in every namespace with its own ServiceAccount',
  );
  const agonesRole = JSON.parse(await kubectl(['get', 'clusterrole', agones.roleRef.name, '-o', 'json'])) as {
    rules: unknown[];
  };
  t.same(
    agonesRole.rules,
    [
      {
        apiGroups: ['agones.dev'],
        resources: ['gameservers'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: ['agones.dev'], resources: ['fleets'], verbs: ['list', 'watch'] },
      { apiGroups: ['agones.dev'], resources: ['fleets/scale'], verbs: ['patch'] },
      { apiGroups: ['allocation.agones.dev'], resources: ['gameserverallocations'], verbs: ['create'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create', 'get'] },
      { apiGroups: [''], resources: ['pods/attach'], verbs: ['create', 'get'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create'] },
      {
        apiGroups: ['snapshot.storage.k8s.io'],
        resources: ['volumesnapshots'],
        verbs: ['get', 'list', 'watch', 'create', 'delete'],
      },
    ],
    'exactly the verbs the game-server, console, log and snapshot routes use',
  );
  const impersonate = JSON.parse(
    await kubectl(['get', 'clusterrole', 'gsp-agent-gsp-tunnel-agent-impersonate', '-o', 'json']),
  ) as { rules: unknown[] };
  t.same(
    impersonate.rules,
    [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }],
    'the agent may only impersonate users',
  );
  t.match(
    await kubectl(['get', 'configmap', 'gsp-control-plane-roles', '-n', 'gsp', '-o', 'jsonpath={.data.roles\\.yaml}']),
    /fleet-operator/,
  );
  t.same((await kubectl(['get', 'pdb', '-n', 'gsp', '-o', 'name'])).trim().split('\n').sort(), [
    'poddisruptionbudget.policy/gsp-control-plane',
    'poddisruptionbudget.policy/gsp-platform-api-server',
    'poddisruptionbudget.policy/gsp-platform-cluster-proxy',
  ]);

  // The proxy as the API server stored it: three replicas, one at a time out of service, each drained gently.
  const proxy = JSON.parse(
    await kubectl(['get', 'deployment', 'gsp-platform-cluster-proxy', '-n', 'gsp', '-o', 'json']),
  ) as {
    spec: {
      replicas: number;
      template: {
        spec: {
          terminationGracePeriodSeconds: number;
          topologySpreadConstraints: { topologyKey: string }[];
          containers: { lifecycle: unknown; env: { name: string; valueFrom?: unknown }[] }[];
        };
      };
    };
  };
  const pod = proxy.spec.template.spec;
  t.equal(proxy.spec.replicas, 3);
  t.same(
    pod.topologySpreadConstraints.map((c) => c.topologyKey),
    ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'],
  );
  t.same(pod.containers[0]!.lifecycle, { preStop: { sleep: { seconds: 5 } } });
  t.equal(pod.terminationGracePeriodSeconds, 35);
  t.same(pod.containers[0]!.env.find((e) => e.name === 'PROXY_REPLICA_ID')?.valueFrom, {
    fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' },
  });
  const proxyBudget = JSON.parse(
    await kubectl(['get', 'pdb', 'gsp-platform-cluster-proxy', '-n', 'gsp', '-o', 'jsonpath={.spec.maxUnavailable}']),
  ) as number;
  t.equal(proxyBudget, 1);

  // Exposure and hardening, stored under the kinds a cluster serves them as.
  const ingresses = (await kubectl(['get', 'ingress', '-n', 'gsp'])).trim().split('\n');
  t.match(ingresses[0], /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE$/);
  t.match(ingresses.slice(1).sort(), [
    /^gsp-control-plane\s+nginx\s+cp\.example\.com\s+80, 443\s+/,
    /^gsp-platform-api-server\s+nginx\s+platform\.example\.com\s+80, 443\s+/,
  ]);
  t.same((await kubectl(['get', 'httproutes', '-n', 'gsp', '-o', 'name'])).trim().split('\n'), [
    'httproute.gateway.networking.k8s.io/gsp-control-plane',
  ]);
  t.same((await kubectl(['get', 'networkpolicies', '-n', 'gsp', '-o', 'name'])).trim().split('\n').sort(), [
    'networkpolicy.networking.k8s.io/gsp-control-plane',
    'networkpolicy.networking.k8s.io/gsp-platform-api-server',
    'networkpolicy.networking.k8s.io/gsp-platform-cluster-proxy',
  ]);
  t.same(
    (await kubectl(['get', 'servicemonitors,prometheusrules', '-n', 'gsp-agent', '-o', 'name'])).trim().split('\n'),
    ['servicemonitor.monitoring.coreos.com/gsp-tunnel-agent', 'prometheusrule.monitoring.coreos.com/gsp-tunnel-agent'],
  );
  t.equal(
    (await kubectl(['get', 'servicemonitors', '-n', 'gsp', '-o', 'name'])).trim().split('\n').length,
    3,
    'a ServiceMonitor per metrics Service',
  );

  // A helm upgrade rolls the pods whose ConfigMap or Secret changed (checksum/config, checksum/secret), and no other.
  const rollout = async (): Promise<Record<string, [number, Record<string, string>]>> =>
    Object.fromEntries(
      (
        JSON.parse(await kubectl(['get', 'deployments', '-n', 'gsp', '-o', 'json'])) as {
          items: (Deployed & { spec: { template: { metadata: { annotations: Record<string, string> } } } })[];
        }
      ).items.map((d) => [d.metadata.name, [d.metadata.generation, d.spec.template.metadata.annotations]]),
    );
  const upgrade = async (release: string, chart: string, ...args: string[]): Promise<void> => {
    const result = await helm.run(['upgrade', release, chartDir(chart), '-n', 'gsp', '--reuse-values', ...args]);
    t.equal(result.code, 0, `helm upgrade ${release} ${args.join(' ')}: ${result.stderr}`);
  };
  const first = await rollout();
  await upgrade('gsp', 'platform');
  await upgrade('gsp-control-plane', 'control-plane');
  t.same(await rollout(), first, 'an upgrade with nothing changed rolls nothing');

  const database = { ...secrets['gsp-db'], url: 'postgres://gsp:rotated-password-4c3b@db.internal:5432/gsp' };
  await kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gsp-db', namespace: 'gsp' },
      stringData: database,
    }),
  );
  await upgrade('gsp', 'platform');
  const rotated = await rollout();
  for (const name of ['gsp-platform-api-server', 'gsp-platform-cluster-proxy']) {
    t.equal(rotated[name]![0], first[name]![0] + 1, `${name}: the rotated database password rolls it`);
    t.not(rotated[name]![1]['checksum/secret'], first[name]![1]['checksum/secret'], `${name}: checksum/secret`);
  }
  t.same(rotated['gsp-control-plane'], first['gsp-control-plane'], 'the control plane, which does not read it, stays');

  await upgrade('gsp-control-plane', 'control-plane', '--set-json', 'customRoles={"auditor":{"inherits":["viewer"]}}');
  const [generation, checksums] = (await rollout())['gsp-control-plane']!;
  t.equal(generation, first['gsp-control-plane']![0] + 1, 'a changed role rolls the control plane');
  t.not(checksums['checksum/config'], first['gsp-control-plane']![1]['checksum/config'], 'through checksum/config');
  t.equal(
    checksums['checksum/secret'],
    first['gsp-control-plane']![1]['checksum/secret'],
    'its Secrets are as they were',
  );
  t.match(
    await kubectl(['get', 'configmap', 'gsp-control-plane-roles', '-n', 'gsp', '-o', 'jsonpath={.data.roles\\.yaml}']),
    /auditor/,
  );

  // Turning the pin around is one upgrade, and it reaches both processes.
  const pins = async (): Promise<(string | undefined)[]> =>
    (await deploymentsIn('gsp'))
      .filter((d) => d.metadata.name.startsWith('gsp-platform'))
      .map((d) => d.spec.template.spec.containers[0]!.env?.find((e) => e.name === 'SERVICE_CLI_ACCESS_ENABLED')?.value);
  t.same(await pins(), ['true', 'true']);
  const pin = async (value: string): Promise<void> => {
    const args = ['upgrade', 'gsp', chartDir('platform'), '--namespace', 'gsp', '--reuse-values'];
    const upgrade = await helm.run([...args, '--set', `cliAccess.pinned=${value}`]);
    t.equal(upgrade.code, 0, `helm upgrade: ${upgrade.stderr}`);
  };
  await pin('false');
  t.same(await pins(), ['false', 'false'], 'pinned off on the API server and the proxy');
  await pin('');
  t.same(await pins(), [undefined, undefined], 'unpinned: the stored value decides again');

  for (const [release, , namespace] of releases) {
    const uninstall = await helm.run(['uninstall', release, '--namespace', namespace]);
    t.equal(uninstall.code, 0, uninstall.stderr);
  }
  t.equal(
    (
      await kubectl([
        'get',
        'deployments,services,serviceaccounts,roles,rolebindings,configmaps,pdb,ingresses,networkpolicies,' +
          'httproutes,servicemonitors,prometheusrules',
        '-n',
        'gsp',
        '-o',
        'name',
      ])
    ).trim(),
    '',
    'nothing of the releases is left in gsp',
  );
  t.equal((await kubectl(['get', 'clusterroles,clusterrolebindings', '-o', 'name'])).trim(), '', 'nor cluster-wide');
  t.equal(
    (await kubectl(['get', 'secrets', '-n', 'gsp', '-o', 'name'])).trim().split('\n').length,
    Object.keys(secrets).length,
    "the operator's Secrets stay",
  );
});
