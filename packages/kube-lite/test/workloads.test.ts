import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { kubectl, kubectlOk, request, startForTest } from './helper.js';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const manifest = join(workspaceDir(import.meta.url), 'test', 'fixtures', 'workloads.yaml');

interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
  ports?: { containerPort: number }[];
}

/** The rows of a `kubectl get` table, header first, split on runs of spaces. */
function rows(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

t.test(
  'kubectl applies, updates and deletes a ServiceAccount, RBAC objects, a Deployment and a PodDisruptionBudget',
  async (t) => {
    const kube = await startForTest(t);
    const applied = await kubectlOk(t, kube, ['apply', '-f', manifest]);
    for (const line of [
      'serviceaccount/game-api created',
      'role.rbac.authorization.k8s.io/game-api created',
      'rolebinding.rbac.authorization.k8s.io/game-api created',
      'clusterrole.rbac.authorization.k8s.io/game-api-reader created',
      'clusterrolebinding.rbac.authorization.k8s.io/game-api-reader created',
      'deployment.apps/game-api created',
      'poddisruptionbudget.policy/game-api created',
    ]) {
      t.match(applied, line);
    }

    // Stored, not reconciled: nothing makes pods, so none of the two replicas is ever ready.
    const deployments = rows(await kubectlOk(t, kube, ['get', 'deploy']));
    t.same(deployments[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    t.match(deployments.slice(1), [['game-api', '0/2', '0', '0', /^\d+s$/]]);
    t.equal(deployments.length, 2);
    t.match(rows(await kubectlOk(t, kube, ['get', 'deploy', '-o', 'wide']))[1], [
      'game-api',
      '0/2',
      '0',
      '0',
      /^\d+s$/,
      'api',
      'registry.example/game-api:1.0.0',
      'app=game-api',
    ]);
    t.equal(await kubectlOk(t, kube, ['get', 'pods', '-o', 'name']), '', 'no pods are made for the deployment');

    t.match(rows(await kubectlOk(t, kube, ['get', 'serviceaccounts'])), [
      ['NAME', 'SECRETS', 'AGE'],
      ['game-api', '0', /^\d+s$/],
    ]);
    t.match(rows(await kubectlOk(t, kube, ['get', 'roles'])), [
      ['NAME', 'CREATED AT'],
      ['game-api', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/],
    ]);
    t.match(rows(await kubectlOk(t, kube, ['get', 'rolebindings', '-o', 'wide'])), [
      ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'],
      ['game-api', 'Role/game-api', /^\d+s$/, '/game-api'],
    ]);
    t.match(rows(await kubectlOk(t, kube, ['get', 'pdb'])), [
      ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'],
      ['game-api', '1', 'N/A', '0', /^\d+s$/],
    ]);

    // Cluster-scoped kinds: listed without a namespace, and a namespace flag does not change that.
    t.match(rows(await kubectlOk(t, kube, ['get', 'clusterroles'])), [
      ['NAME', 'CREATED AT'],
      ['game-api-reader', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/],
    ]);
    t.match(
      await kubectlOk(t, kube, ['-n', 'kube-system', 'get', 'clusterroles', '-o', 'name']),
      'clusterrole.rbac.authorization.k8s.io/game-api-reader',
    );
    t.match(rows(await kubectlOk(t, kube, ['get', 'clusterrolebindings', '-o', 'wide'])), [
      ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'],
      ['game-api-reader', 'ClusterRole/game-api-reader', /^\d+s$/, 'default/game-api'],
    ]);
    const clusterRole = JSON.parse(
      await kubectlOk(t, kube, ['get', 'clusterrole', 'game-api-reader', '-o', 'json']),
    ) as { metadata: Record<string, unknown> };
    t.equal(clusterRole.metadata.namespace, undefined, 'a ClusterRole has no namespace');
    t.equal(clusterRole.metadata.generation, undefined, 'RBAC objects carry no generation, as in Kubernetes');

    // A changed env value: kubectl sends a strategic merge patch with only that entry and the container's name.
    const changed = readFileSync(manifest, 'utf8').replace('value: info', 'value: debug');
    const reapplied = await kubectlOk(t, kube, ['apply', '-f', '-'], changed);
    t.match(reapplied, 'deployment.apps/game-api configured');
    t.match(reapplied, 'serviceaccount/game-api unchanged');
    const deployment = JSON.parse(await kubectlOk(t, kube, ['get', 'deploy', 'game-api', '-o', 'json'])) as {
      metadata: { generation: number };
      spec: { template: { spec: { containers: Container[]; serviceAccountName: string } } };
    };
    t.equal(deployment.metadata.generation, 2, 'the spec change bumps the generation');
    t.same(
      deployment.spec.template.spec.containers.map((c) => ({
        name: c.name,
        image: c.image,
        env: c.env,
        ports: c.ports,
      })),
      [
        {
          name: 'api',
          image: 'registry.example/game-api:1.0.0',
          env: [
            { name: 'LOG_LEVEL', value: 'debug' },
            { name: 'REGION', value: 'eu-west' },
          ],
          ports: [{ containerPort: 8080 }],
        },
      ],
    );
    t.equal(deployment.spec.template.spec.serviceAccountName, 'game-api');

    // The scale subresource and the status subresource work; only a client ever writes the status.
    t.match(
      await kubectlOk(t, kube, ['scale', 'deploy', 'game-api', '--replicas=3']),
      'deployment.apps/game-api scaled',
    );
    await kubectlOk(t, kube, [
      'patch',
      'deploy',
      'game-api',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"readyReplicas":3,"updatedReplicas":3,"availableReplicas":3}}',
    ]);
    t.match(rows(await kubectlOk(t, kube, ['get', 'deploy', 'game-api']))[1], ['game-api', '3/3', '3', '3', /^\d+s$/]);

    const resources = await kubectlOk(t, kube, ['api-resources']);
    t.match(resources, /^serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount$/m);
    t.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    t.match(resources, /^poddisruptionbudgets\s+pdb\s+policy\/v1\s+true\s+PodDisruptionBudget$/m);
    t.match(resources, /^roles\s+rbac\.authorization\.k8s\.io\/v1\s+true\s+Role$/m);
    t.match(resources, /^rolebindings\s+rbac\.authorization\.k8s\.io\/v1\s+true\s+RoleBinding$/m);
    t.match(resources, /^clusterroles\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRole$/m);
    t.match(resources, /^clusterrolebindings\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRoleBinding$/m);
    t.match(
      await kubectlOk(t, kube, ['get', 'all', '-o', 'name']),
      'deployment.apps/game-api',
      'deployments are in the "all" category',
    );

    const deleted = await kubectlOk(t, kube, ['delete', '-f', manifest]);
    t.match(deleted, 'deployment.apps "game-api" deleted');
    t.match(deleted, 'clusterrolebinding.rbac.authorization.k8s.io "game-api-reader" deleted');
    t.equal(
      await kubectlOk(t, kube, ['get', '-f', manifest, '-o', 'name', '--ignore-not-found']),
      '',
      'every object of the manifest is gone',
    );
  },
);

t.test('kubectl create makes each new kind from its typed client, which sends protobuf', async (t) => {
  const kube = await startForTest(t);
  /** Runs `kubectl create <args>` and expects it to report `what` created. */
  const create = async (args: string[], what: string): Promise<void> => {
    t.match(await kubectlOk(t, kube, ['create', ...args]), `${what} created`);
  };
  await create(['serviceaccount', 'robot'], 'serviceaccount/robot');
  await create(
    ['role', 'reader', '--verb=get,list', '--resource=pods,configmaps'],
    'role.rbac.authorization.k8s.io/reader',
  );
  await create(
    ['rolebinding', 'reader', '--role=reader', '--serviceaccount=default:robot', '--user=alice'],
    'rolebinding.rbac.authorization.k8s.io/reader',
  );
  await create(
    ['clusterrole', 'system:health', '--verb=get', '--non-resource-url=/healthz'],
    'clusterrole.rbac.authorization.k8s.io/system:health',
  );
  await create(
    ['clusterrolebinding', 'health', '--clusterrole=system:health', '--group=ops'],
    'clusterrolebinding.rbac.authorization.k8s.io/health',
  );
  await create(
    ['deployment', 'idle', '--image=nginx:1.27', '--port=80', '--replicas=0', '--', 'sleep', '60'],
    'deployment.apps/idle',
  );
  await create(
    ['poddisruptionbudget', 'idle', '--selector=app=idle', '--min-available=50%'],
    'poddisruptionbudget.policy/idle',
  );

  const role = JSON.parse(await kubectlOk(t, kube, ['get', 'role', 'reader', '-o', 'json'])) as { rules: unknown };
  t.same(
    role.rules,
    [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list'] }],
    'the core group "" survives decoding',
  );
  const binding = JSON.parse(await kubectlOk(t, kube, ['get', 'rolebinding', 'reader', '-o', 'json'])) as {
    roleRef: unknown;
    subjects: unknown;
  };
  t.same(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
  t.same(binding.subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
  ]);
  const clusterRole = JSON.parse(await kubectlOk(t, kube, ['get', 'clusterrole', 'system:health', '-o', 'json'])) as {
    rules: unknown;
  };
  t.same(clusterRole.rules, [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]);

  const deployment = JSON.parse(await kubectlOk(t, kube, ['get', 'deploy', 'idle', '-o', 'json'])) as {
    spec: {
      replicas: number;
      selector: unknown;
      template: { metadata: { labels: unknown }; spec: { containers: unknown[] } };
    };
  };
  t.equal(deployment.spec.replicas, 0, 'an explicit zero is kept, not defaulted to 1');
  t.same(deployment.spec.selector, { matchLabels: { app: 'idle' } });
  t.same(deployment.spec.template.metadata.labels, { app: 'idle' });
  t.same(deployment.spec.template.spec.containers, [
    { name: 'nginx', image: 'nginx:1.27', command: ['sleep', '60'], ports: [{ containerPort: 80 }] },
  ]);
  t.match(rows(await kubectlOk(t, kube, ['get', 'deploy', 'idle']))[1], ['idle', '0/0', '0', '0', /^\d+s$/]);
  const pdb = JSON.parse(await kubectlOk(t, kube, ['get', 'pdb', 'idle', '-o', 'json'])) as {
    spec: unknown;
    status: unknown;
  };
  t.same(pdb.spec, { minAvailable: '50%', selector: { matchLabels: { app: 'idle' } } });
  t.same(pdb.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
});

t.test('the new kinds are validated as the API server validates them', async (t) => {
  const kube = await startForTest(t);
  const apply = (yaml: string): ReturnType<typeof kubectl> => kubectl(kube, ['apply', '-f', '-'], yaml);
  /** Applies `yaml`, expects kubectl to fail, and resolves with what it printed on stderr. */
  const refused = async (yaml: string): Promise<string> => {
    const run = await apply(yaml);
    t.equal(run.code, 1);
    return run.stderr;
  };

  const mismatch = await refused(`apiVersion: apps/v1
kind: Deployment
metadata: {name: mismatch}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: c, image: x}]}
`);
  t.match(
    mismatch,
    'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: ' +
      '`selector` does not match template `labels`',
  );

  const empty = await refused(`apiVersion: apps/v1
kind: Deployment
metadata: {name: empty}
spec: {template: {spec: {containers: []}}}
`);
  t.match(empty, '* spec.selector: Required value');
  t.match(empty, '* spec.template.spec.containers: Required value');

  const noGroups = await refused(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: no-groups}
rules: [{resources: [pods], verbs: [get]}]
`);
  t.match(
    noGroups,
    'The Role "no-groups" is invalid: rules[0].apiGroups: ' +
      'Required value: resource rules must supply at least one api group',
  );

  const both = await refused(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: both}
spec: {minAvailable: 1, maxUnavailable: 1}
`);
  t.match(both, 'minAvailable and maxUnavailable cannot be both set');

  // RBAC names are path segments, not DNS names: colons and capitals are fine, '/' is not.
  t.match(
    (
      await apply(
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: "system:Reader"}\nrules: []\n',
      )
    ).stdout,
    'clusterrole.rbac.authorization.k8s.io/system:Reader created',
  );
  const slash = await request(kube, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'a/b' },
  });
  t.equal(slash.status, 422);
  t.match(slash.body, {
    reason: 'Invalid',
    message:
      'ClusterRole.rbac.authorization.k8s.io "a/b" is invalid: ' +
      `metadata.name: Invalid value: "a/b": may not contain '/'`,
  });

  // A binding's roleRef cannot change, and a Deployment's selector is immutable (helm upgrades trip over both).
  await kubectlOk(t, kube, ['create', 'rolebinding', 'bound', '--clusterrole=system:Reader', '--user=bob']);
  const rebind = await kubectl(kube, [
    'patch',
    'rolebinding',
    'bound',
    '--type=merge',
    '-p',
    '{"roleRef":{"name":"other"}}',
  ]);
  t.equal(rebind.code, 1);
  t.match(rebind.stderr, 'cannot change roleRef');
  await kubectlOk(t, kube, ['create', 'deployment', 'web', '--image=nginx']);
  const reselect = await kubectl(kube, [
    'patch',
    'deploy',
    'web',
    '--type=json',
    '-p',
    '[{"op":"add","path":"/spec/selector/matchLabels/tier","value":"x"},' +
      '{"op":"add","path":"/spec/template/metadata/labels/tier","value":"x"}]',
  ]);
  t.equal(reselect.code, 1);
  t.match(
    reselect.stderr,
    'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable',
  );
});

t.test(
  "a replicated Deployment's spread, preStop sleep and pod-name variable " +
    'are defaulted and validated as the API server does',
  async (t) => {
    const kube = await startForTest(t);
    const deployment = (pod: string, name = 'proxy'): string => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 3
  selector: {matchLabels: {app: proxy}}
  template:
    metadata: {labels: {app: proxy}}
    spec:
${pod.replace(/^/gm, '      ')}
`;
    const hostSpread =
      '{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, ' +
      'labelSelector: {matchLabels: {app: proxy}}}';
    const good = `terminationGracePeriodSeconds: 35
topologySpreadConstraints:
  - ${hostSpread}
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
containers:
  - name: proxy
    image: x
    env: [{name: PROXY_REPLICA_ID, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    lifecycle: {preStop: {sleep: {seconds: 5}}}`;
    t.match(await kubectlOk(t, kube, ['apply', '-f', '-'], deployment(good)), 'deployment.apps/proxy created');
    const stored = JSON.parse(await kubectlOk(t, kube, ['get', 'deploy', 'proxy', '-o', 'json'])) as {
      spec: { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } };
    };
    const pod = stored.spec.template.spec;
    t.same(
      pod.containers[0]!.env,
      [{ name: 'PROXY_REPLICA_ID', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
      'a fieldRef reads the v1 pod unless it says otherwise',
    );
    t.same(pod.containers[0]!.lifecycle, { preStop: { sleep: { seconds: 5 } } });
    t.equal((pod.topologySpreadConstraints as unknown[]).length, 2);

    // kubectl apply patches the list entry by entry, on its merge key (topologyKey).
    await kubectlOk(t, kube, ['apply', '-f', '-'], deployment(good.replace('DoNotSchedule', 'ScheduleAnyway')));
    t.same(
      JSON.parse(
        await kubectlOk(t, kube, [
          'get',
          'deploy',
          'proxy',
          '-o',
          'jsonpath={.spec.template.spec.topologySpreadConstraints}',
        ]),
      ),
      [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app: 'proxy' } },
        },
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
      ],
    );

    const refused = async (spec: string): Promise<string> => {
      const run = await kubectl(kube, ['apply', '-f', '-'], deployment(spec, 'refused'));
      t.equal(run.code, 1);
      return run.stderr;
    };
    const longSleep = await refused(good.replace('seconds: 5', 'seconds: 40'));
    t.match(
      longSleep,
      'The Deployment "refused" is invalid: spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds: ' +
        'Invalid value: 40: must be non-negative and less than terminationGracePeriodSeconds (35)',
      'a preStop sleep cannot outlast the grace period',
    );
    const twoHandlers = await refused(
      good.replace('{sleep: {seconds: 5}}', '{sleep: {seconds: 5}, exec: {command: [sleep, "5"]}}'),
    );
    t.match(
      twoHandlers,
      'spec.template.spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type',
    );
    const spread = await refused(`topologySpreadConstraints:
  - {maxSkew: 0, topologyKey: "", whenUnsatisfiable: Sometimes}
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
  - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
containers: [{name: proxy, image: x}]`);
    for (const line of [
      'spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.template.spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty',
      'spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: ' +
        'Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
      'spec.template.spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: ' +
        'Duplicate value: "{kubernetes.io/hostname, ScheduleAnyway}"',
    ])
      t.match(spread, line);
  },
);

/** Protobuf encoding, just enough to build request bodies by hand. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
const field = (num: number, ...parts: (Buffer | string)[]): Buffer => {
  const payload = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return Buffer.concat([varint((num << 3) | 2), varint(payload.length), payload]);
};
const entry = (num: number, key: string, value: string): Buffer => field(num, field(1, key), field(2, value));

function deploymentBody(container: Buffer): Buffer {
  const labels = entry(11, 'app', 'x');
  const deployment = Buffer.concat([
    field(1, field(1, 'proto')),
    field(2, field(2, entry(1, 'app', 'x')), field(3, field(1, labels), field(2, field(2, container)))),
  ]);
  return Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    field(1, field(1, 'apps/v1'), field(2, 'Deployment')),
    field(2, deployment),
  ]);
}

t.test('a protobuf body with a field kube-lite cannot decode is refused, never silently cut', async (t) => {
  const kube = await startForTest(t);
  const post = (body: Buffer): Promise<Response> =>
    fetch(`${kube.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
  const named = Buffer.concat([field(1, 'c'), field(2, 'img')]);
  // Container field 8 is `resources`: empty (as Go writes an unset struct) it is skipped; with limits it is refused.
  const emptyResources = await post(deploymentBody(Buffer.concat([named, field(8)])));
  t.equal(emptyResources.status, 201, 'an empty unknown field is a zero value and is skipped');
  const limited = deploymentBody(Buffer.concat([named, field(8, field(1, field(1, 'cpu'), field(2, field(1, '1'))))]));
  const refused = await post(limited);
  t.equal(refused.status, 415);
  t.match(await refused.json(), {
    reason: 'UnsupportedMediaType',
    message: /field 8 of apps\/v1\/Deployment\.spec\.template\.spec\.containers/,
  });
});

t.test('kubectl create service sends protobuf, which arrives as the same command renders it in JSON', async (t) => {
  const kube = await startForTest(t);
  interface Rendered {
    metadata: { labels: Record<string, string> };
    spec: Record<string, unknown>;
    status: unknown;
  }
  const cases = [
    ['clusterip', 'web', '--tcp=80:8080'],
    ['clusterip', 'headless', '--clusterip=None'],
    ['nodeport', 'nodes', '--tcp=5678:8080', '--node-port=30080'],
    ['loadbalancer', 'balanced', '--tcp=443:https,80'],
    ['externalname', 'alias', '--external-name=db.example.com', '--tcp=5432'],
  ];
  for (const [type, name, ...flags] of cases) {
    const args = ['create', 'service', type as string, name as string, ...flags];
    const rendered = JSON.parse(await kubectlOk(t, kube, [...args, '--dry-run=client', '-o', 'json'])) as Rendered;
    t.match(await kubectlOk(t, kube, args), `service/${name} created`);
    const stored = JSON.parse(await kubectlOk(t, kube, ['get', 'service', name as string, '-o', 'json'])) as Rendered;
    // Every field the command sets arrives as in JSON; the server adds the cluster IP.
    for (const [field, value] of Object.entries(rendered.spec))
      t.same(stored.spec[field], value, `${name}: spec.${field}`);
    t.same(stored.metadata.labels, rendered.metadata.labels, `${name}: labels`);
    t.same(stored.status, rendered.status, `${name}: status`);
  }
  const nodes = JSON.parse(await kubectlOk(t, kube, ['get', 'service', 'nodes', '-o', 'json'])) as { spec: unknown };
  t.match(nodes.spec, {
    type: 'NodePort',
    ports: [{ name: '5678-8080', protocol: 'TCP', port: 5678, targetPort: 8080, nodePort: 30080 }],
    selector: { app: 'nodes' },
  });
  const balanced = JSON.parse(await kubectlOk(t, kube, ['get', 'service', 'balanced', '-o', 'json'])) as {
    spec: { ports: unknown };
  };
  t.same(
    balanced.spec.ports,
    [
      { name: '443-https', protocol: 'TCP', port: 443, targetPort: 'https' },
      { name: '80', protocol: 'TCP', port: 80, targetPort: 80 },
    ],
    'a named target port stays a string',
  );
  t.match(rows(await kubectlOk(t, kube, ['get', 'svc', 'web', 'headless'])), [
    ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'],
    ['web', 'ClusterIP', /^10\.96\.\d+\.\d+$/, '<none>', '80/TCP', /^\d+s$/],
    ['headless', 'ClusterIP', 'None', '<none>', '<none>', /^\d+s$/],
  ]);
});

t.test('a protobuf Service with a field kube-lite cannot decode is refused, never silently cut', async (t) => {
  const kube = await startForTest(t);
  const post = (spec: Buffer): Promise<Response> => {
    const service = Buffer.concat([field(1, field(1, 'proto-svc')), field(2, spec), field(3, field(1))]);
    const body = Buffer.concat([
      Buffer.from([0x6b, 0x38, 0x73, 0x00]),
      field(1, field(1, 'v1'), field(2, 'Service')),
      field(2, service),
    ]);
    return fetch(`${kube.url}/api/v1/namespaces/default/services`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
  };
  // A port with an unset targetPort (Go writes the zero IntOrString) gets the port's number, as in JSON.
  const port = field(
    1,
    field(1, 'http'),
    field(2, 'TCP'),
    Buffer.from([0x18, 0x50]),
    field(4, Buffer.from([0x08, 0x00, 0x10, 0x00]), field(3)),
  );
  const plain = Buffer.concat([port, entry(2, 'app', 'x'), field(4, 'ClusterIP')]);
  // Field 99 stands for a ServiceSpec field newer than kube-lite: empty it is a zero value, set it is refused.
  const accepted = await post(Buffer.concat([plain, field(99)]));
  t.equal(accepted.status, 201, 'an empty unknown field is a zero value and is skipped');
  t.match(await accepted.json(), {
    spec: {
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 80 }],
      selector: { app: 'x' },
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  });
  const refused = await post(Buffer.concat([plain, field(99, 'PreferSameZone')]));
  t.equal(refused.status, 415);
  t.match(await refused.json(), { reason: 'UnsupportedMediaType', message: /field 99 of v1\/Service\.spec/ });
});
