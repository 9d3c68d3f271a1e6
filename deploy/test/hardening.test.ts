/**
 * Every pod of every chart against the restricted Pod Security Standard, field by field; startup probes and
 * topology spread; the NetworkPolicies; the checksums that roll pods when what they read changes; and the
 * Prometheus Operator's objects, whose alerts must use metrics the services export.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chartDir, helmIn, podSpec, root, template, valuesArgs } from './render.js';
import type { Container, Manifest, PodSpec } from './render.js';
import { full, hardened, merged, panelSignIn } from './values.js';

const helm = helmIn();
t.teardown(() => helm.close());

type Workload = Manifest & {
  spec: {
    replicas?: number;
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> } };
    volumeClaimTemplates?: { metadata: { name: string } }[];
  };
};
const workloads = (docs: Manifest[]): Workload[] =>
  docs.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet') as Workload[];

/** Each chart with value sets that between them render every pod shape it has. */
const valueSets: [string, string, Record<string, unknown>][] = [
  ['platform', 'full', full.platform!],
  ['platform', 'hardened', hardened.platform!],
  ['control-plane', 'full', full['control-plane']!],
  ['control-plane', 'hardened', hardened['control-plane']!],
  [
    'control-plane',
    'spool on a claim',
    merged(full['control-plane']!, { audit: { spool: { persistence: { enabled: true } } } }),
  ],
  ['tunnel-agent', 'full', full['tunnel-agent']!],
  ['tunnel-agent', 'hardened', hardened['tunnel-agent']!],
];

type Pod = PodSpec & Record<string, unknown>;
type Ctx = Record<string, unknown> | undefined;

/** The volume sources the restricted profile allows. */
const ALLOWED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/**
 * The restricted Pod Security Standard (https://kubernetes.io/docs/concepts/security/pod-security-standards/), the
 * baseline's controls included, as one list of violations; plus a read-only root with every writable path an
 * emptyDir (or the spool's claim).
 */
function restrictedViolations(workload: Workload): string[] {
  const pod = podSpec(workload) as Pod;
  const claims = (workload.spec.volumeClaimTemplates ?? []).map((c) => ({
    name: c.metadata.name,
    persistentVolumeClaim: {},
  }));
  const volumes = [...(pod.volumes ?? []), ...claims] as Record<string, unknown>[];
  const podContext = pod.securityContext as Ctx;
  const problems: string[] = [];
  const no = (what: string): void => void problems.push(what);
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[field] === true) no(`pod: ${field}`);
  for (const volume of volumes) {
    const sources = Object.keys(volume).filter((key) => key !== 'name');
    if (sources.some((source) => !ALLOWED_VOLUMES.includes(source)))
      no(`volume ${String(volume.name)}: ${sources.join(',')}`);
  }
  if (Array.isArray(podContext?.sysctls) && podContext.sysctls.length > 0) no('pod: sysctls');
  if (podContext?.runAsUser === 0) no('pod: runAsUser 0');
  const seLinux = (context: Ctx): void => {
    const type = (context?.seLinuxOptions as { type?: string } | undefined)?.type;
    if (type !== undefined && !['', 'container_t', 'container_init_t', 'container_kvm_t'].includes(type))
      no(`seLinuxOptions.type ${type}`);
  };
  seLinux(podContext);
  const containers = [
    ...pod.containers,
    ...((pod.initContainers as Container[] | undefined) ?? []),
    ...((pod.ephemeralContainers as Container[] | undefined) ?? []),
  ];
  for (const container of containers) {
    const c = container.securityContext as Ctx;
    const at = `container ${container.name}`;
    if (c?.privileged === true) no(`${at}: privileged`);
    if (c?.allowPrivilegeEscalation !== false) no(`${at}: allowPrivilegeEscalation is not false`);
    const runAsNonRoot = c?.runAsNonRoot ?? podContext?.runAsNonRoot;
    if (runAsNonRoot !== true) no(`${at}: runAsNonRoot is not true`);
    if (c?.runAsUser === 0) no(`${at}: runAsUser 0`);
    const seccomp = ((c?.seccompProfile ?? podContext?.seccompProfile) as { type?: string } | undefined)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') no(`${at}: seccompProfile ${String(seccomp)}`);
    const capabilities = c?.capabilities as { drop?: string[]; add?: string[] } | undefined;
    if (!capabilities?.drop?.includes('ALL')) no(`${at}: does not drop ALL capabilities`);
    for (const add of capabilities?.add ?? []) if (add !== 'NET_BIND_SERVICE') no(`${at}: adds ${add}`);
    if (c?.procMount !== undefined && c.procMount !== 'Default') no(`${at}: procMount ${String(c.procMount)}`);
    seLinux(c);
    for (const port of (container.ports ?? []) as { hostPort?: number }[])
      if (port.hostPort) no(`${at}: hostPort ${port.hostPort}`);
    if (c?.readOnlyRootFilesystem !== true) no(`${at}: the root filesystem is writable`);
    for (const mount of (container.volumeMounts ?? []) as { name: string; mountPath: string; readOnly?: boolean }[]) {
      const volume = volumes.find((v) => v.name === mount.name);
      if (volume === undefined) no(`${at}: mounts ${mount.name}, which is no volume`);
      else if (mount.readOnly !== true && !('emptyDir' in volume) && !('persistentVolumeClaim' in volume))
        no(`${at}: ${mount.mountPath} is writable and not an emptyDir`);
    }
    if (!(container.volumeMounts ?? []).some((m) => m.mountPath === '/tmp')) no(`${at}: no writable /tmp`);
  }
  return problems;
}

for (const [chart, label, values] of valueSets) {
  t.test(`${chart} (${label}): every pod meets the restricted Pod Security Standard`, async (t) => {
    const lint = await helm.run(['lint', '--strict', chartDir(chart), ...valuesArgs(values)]);
    t.equal(lint.code, 0, `helm lint --strict: ${lint.stdout}${lint.stderr}`);
    const pods = workloads(await template(helm, chart, values));
    t.ok(pods.length > 0);
    for (const workload of pods)
      t.same(restrictedViolations(workload), [], `${workload.kind} ${workload.metadata.name}`);
  });
}

t.test('every container asks for CPU and memory and is held to a memory limit', async (t) => {
  for (const chart of Object.keys(full)) {
    for (const workload of workloads(await template(helm, chart, full[chart]!))) {
      for (const container of podSpec(workload).containers) {
        const resources = (container as Container & { resources?: Record<string, Record<string, string>> }).resources;
        t.match(
          resources,
          { requests: { cpu: /^\d+m?$/, memory: /^\d+Mi$/ }, limits: { memory: /^\d+Mi$/ } },
          `${chart}: ${container.name}`,
        );
      }
    }
  }
});

t.test('the check itself finds what the restricted profile forbids', async (t) => {
  const [workload] = workloads(await template(helm, 'tunnel-agent', full['tunnel-agent']!));
  const broken = JSON.parse(JSON.stringify(workload)) as Workload;
  const pod = podSpec(broken) as Pod;
  pod.hostNetwork = true;
  pod.volumes = [...(pod.volumes ?? []), { name: 'host', hostPath: { path: '/' } } as never];
  const container = pod.containers[0]!;
  container.securityContext = { ...container.securityContext, capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] } };
  container.securityContext.allowPrivilegeEscalation = true;
  container.securityContext.readOnlyRootFilesystem = false;
  (pod.securityContext as Record<string, unknown>).seccompProfile = { type: 'Unconfined' };
  t.same(restrictedViolations(broken), [
    'pod: hostNetwork',
    'volume host: hostPath',
    'container tunnel-agent: allowPrivilegeEscalation is not false',
    'container tunnel-agent: seccompProfile Unconfined',
    'container tunnel-agent: adds NET_ADMIN',
    'container tunnel-agent: the root filesystem is writable',
  ]);
});

type Probe = { httpGet?: { path: string; port: string | number; scheme?: string } };
type Probed = Container & { startupProbe?: Probe & { periodSeconds: number; failureThreshold: number } };

t.test('a slow start (migrations, the informer, the proxy) is covered by a startup probe, not killed', async (t) => {
  const expected: Record<string, number> = { 'api-server': 300, 'cluster-proxy': 120, 'control-plane': 120 };
  for (const chart of ['platform', 'control-plane']) {
    for (const workload of workloads(await template(helm, chart, full[chart]!))) {
      const container = podSpec(workload).containers[0] as Probed;
      const probe = container.startupProbe;
      t.same(probe?.httpGet, container.livenessProbe?.httpGet, `${container.name}: on the liveness probe's endpoint`);
      t.equal(
        probe && probe.periodSeconds * probe.failureThreshold,
        expected[container.name],
        `${container.name}: allowed ${expected[container.name]} s to answer`,
      );
    }
  }
  const tuned = workloads(
    await template(
      helm,
      'platform',
      merged(full.platform!, { apiServer: { startupProbe: { failureThreshold: 120 } } }),
    ),
  ).find((w) => w.metadata.name.endsWith('api-server'))!;
  t.equal((podSpec(tuned).containers[0] as Probed).startupProbe?.failureThreshold, 120, 'a value');
});

t.test('every Deployment of more than one replica spreads over nodes and zones, as a preference', async (t) => {
  let checked = 0;
  for (const chart of Object.keys(full)) {
    for (const workload of workloads(await template(helm, chart, full[chart]!))) {
      if ((workload.spec.replicas ?? 1) < 2) continue;
      checked++;
      t.same(
        podSpec(workload).topologySpreadConstraints,
        ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
          maxSkew: 1,
          topologyKey,
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: workload.spec.template.metadata.labels },
        })),
        `${workload.metadata.name}: by hostname and zone, selecting its own pods`,
      );
    }
  }
  t.equal(checked, 3, 'the API server, the proxy and the control plane');
  const spread = (values: Record<string, unknown>, chart = 'control-plane'): Promise<string[][]> =>
    template(helm, chart, values).then((docs) =>
      (podSpec(workloads(docs)[0]!).topologySpreadConstraints ?? []).map((c) => [c.topologyKey, c.whenUnsatisfiable]),
    );
  t.same(await spread(merged(full['control-plane']!, { topologySpread: { hostname: 'DoNotSchedule', zone: '' } })), [
    ['kubernetes.io/hostname', 'DoNotSchedule'],
  ]);
  const persistent = merged(full['control-plane']!, { audit: { spool: { persistence: { enabled: true } } } });
  t.equal((await spread(persistent)).length, 2, 'the StatefulSet spreads too');
  const refused = await helm.run([
    'template',
    'gsp',
    chartDir('platform'),
    ...valuesArgs(merged(full.platform!, { apiServer: { topologySpread: { zone: 'Always' } } })),
  ]);
  t.match(refused.stderr, "at '/apiServer/topologySpread/zone'");
});

interface Peer {
  ipBlock?: { cidr: string };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { protocol: string; port: number }[];
}
type Policy = Manifest & {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: Rule[];
    egress: Rule[];
  };
};

const policies = (docs: Manifest[]): Policy[] => docs.filter((d) => d.kind === 'NetworkPolicy') as Policy[];
const ports = (rule: Rule): string[] => (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`);
const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The egress rules of a policy as "peer -> ports", peers written as a CIDR or a selector's labels. */
function egressOf(policy: Policy): string[] {
  const peer = (p: Peer): string =>
    p.ipBlock?.cidr ??
    Object.entries({ ...p.namespaceSelector?.matchLabels, ...p.podSelector?.matchLabels })
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  return policy.spec.egress.map((rule) => `${(rule.to ?? []).map(peer).join(' ')} -> ${ports(rule).join(' ')}`);
}

t.test(
  'with networkPolicy.enabled, each pod is selected by a policy that lets in and out only what it needs',
  async (t) => {
    for (const chart of Object.keys(hardened)) {
      const docs = await template(helm, chart, hardened[chart]!);
      t.same(policies(await template(helm, chart, full[chart]!)), [], `${chart}: no policy unless asked for`);
      for (const workload of workloads(docs)) {
        const labels = workload.spec.template.metadata.labels;
        const mine = policies(docs).filter((p) => selects(p.spec.podSelector.matchLabels, labels));
        t.equal(mine.length, 1, `${workload.metadata.name}: one policy selects its pods`);
        const policy = mine[0]!;
        t.same(policy.spec.policyTypes, ['Ingress', 'Egress'], 'both directions are closed but for its rules');
        const declared = podSpec(workload).containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
        for (const rule of policy.spec.ingress)
          for (const port of rule.ports ?? [])
            t.ok(
              declared.includes(port.port),
              `${workload.metadata.name}: ingress port ${port.port} is a container port`,
            );
        t.same(
          policy.spec.egress[0],
          {
            to: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
                podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
              },
            ],
            ports: [
              { protocol: 'UDP', port: 53 },
              { protocol: 'TCP', port: 53 },
            ],
          },
          'DNS first',
        );
      }
    }
    const docs = await template(helm, 'platform', hardened.platform!);
    const [api, proxy] = ['gsp-platform-api-server', 'gsp-platform-cluster-proxy'].map((name) =>
      policies(docs).find((p) => p.metadata.name === name)!,
    );
    t.same(
      api!.spec.ingress.map((r) => [r.from?.map((p) => Object.keys(p).join('+')), ports(r)]),
      [
        [['namespaceSelector'], ['TCP/8081']],
        [['podSelector'], ['TCP/8081']],
        [['namespaceSelector'], ['TCP/9092']],
      ],
      'the API server: from the ingress controller and the proxy to 8081, from monitoring to its metrics',
    );
    t.same(api!.spec.ingress[1]!.from![0]!.podSelector!.matchLabels, {
      'app.kubernetes.io/name': 'cluster-proxy',
      'app.kubernetes.io/instance': 'gsp',
    });
    t.same(egressOf(api!).slice(1), [
      '10.20.0.0/16 -> TCP/5432',
      'kubernetes.io/metadata.name=redis -> TCP/6379',
      '0.0.0.0/0 -> TCP/443',
      'kubernetes.io/metadata.name=flipt -> TCP/8080',
      '0.0.0.0/0 -> TCP/443 TCP/4318',
    ]);
    t.same(
      proxy!.spec.ingress.map((r) => [r.from === undefined ? 'anywhere' : 'monitoring', ports(r)]),
      [
        ['anywhere', ['TCP/8443', 'TCP/8444']],
        ['monitoring', ['TCP/9090']],
      ],
      'the proxy: kubectl and the agents from anywhere, on those two ports only',
    );
    t.same(egressOf(proxy!).slice(1), [
      '10.20.0.0/16 -> TCP/5432',
      'kubernetes.io/metadata.name=redis -> TCP/6379',
      'app.kubernetes.io/name=api-server,app.kubernetes.io/instance=gsp -> TCP/8081',
    ]);
    const [controlPlane] = policies(await template(helm, 'control-plane', hardened['control-plane']!));
    t.same(egressOf(controlPlane!).slice(1), [
      '172.18.0.2/32 -> TCP/443 TCP/6443',
      '10.30.0.0/16 -> TCP/6379',
      '0.0.0.0/0 -> TCP/443',
      '0.0.0.0/0 -> TCP/443 TCP/4318',
    ]);
    const [agent] = policies(await template(helm, 'tunnel-agent', hardened['tunnel-agent']!));
    t.same(agent!.spec.ingress.map(ports), [['TCP/9093']], 'the agent: only Prometheus comes in');
    t.same(egressOf(agent!).slice(1), ['172.18.0.2/32 -> TCP/443 TCP/6443', '0.0.0.0/0 -> TCP/8444']);
  },
);

t.test('a policy that would cut a service off from what it needs is refused, naming the value', async (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'platform',
      merged(hardened.platform!, { networkPolicy: { egress: { postgres: { cidrs: [] } } } }),
      /networkPolicy\.egress\.postgres: the service reaches PostgreSQL; give its addresses as cidrs/,
    ],
    [
      'platform',
      merged(hardened.platform!, { networkPolicy: { egress: { oidc: { cidrs: [] } } } }),
      /networkPolicy\.egress\.oidc: the service reaches the OIDC issuer https:\/\/id\.example\.com/,
    ],
    [
      'control-plane',
      merged(hardened['control-plane']!, { networkPolicy: { egress: { kubernetesApi: { cidrs: [] } } } }),
      /networkPolicy\.egress\.kubernetesApi: the service reaches the Kubernetes API/,
    ],
    [
      'tunnel-agent',
      merged(hardened['tunnel-agent']!, { networkPolicy: { egress: { proxy: { cidrs: [] } } } }),
      /networkPolicy\.egress\.proxy: the service reaches the cluster proxy's tunnel port https:\/\/kubectl/,
    ],
  ];
  for (const [chart, values, message] of cases) {
    const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(result.code, 0, `${chart}: ${message.source}`);
    t.match(result.stderr, message);
  }
  const unused = merged(full['control-plane']!, {
    networkPolicy: { enabled: true, egress: { kubernetesApi: { cidrs: ['172.18.0.2/32'] } } },
    auth: { modes: ['apikey'] },
    panel: { oidc: { clientId: '', clientSecret: { existingSecret: '' } } },
    redis: { existingSecret: '' },
    audit: {
      webhook: { url: '', existingSecret: '', ca: { existingSecret: '' } },
      otlp: { url: '', existingSecret: '' },
    },
  });
  t.ok(
    policies(await template(helm, 'control-plane', unused)).length === 1,
    'a destination the configuration does not use needs no address',
  );
});

const annotations = (docs: Manifest[]): Record<string, Record<string, string>> =>
  Object.fromEntries(workloads(docs).map((w) => [w.metadata.name, w.spec.template.metadata.annotations ?? {}]));

t.test(
  'pods carry checksums of what they read: a changed reference rolls them, an unrelated value does not',
  async (t) => {
    const before = annotations([
      ...(await template(helm, 'platform', full.platform!)),
      ...(await template(helm, 'control-plane', full['control-plane']!)),
      ...(await template(helm, 'tunnel-agent', full['tunnel-agent']!)),
    ]);
    for (const [name, pod] of Object.entries(before))
      t.match(pod['checksum/secret'], /^[0-9a-f]{64}$/, `${name}: checksum/secret`);
    t.match(before['gsp-control-plane']!['checksum/config'], /^[0-9a-f]{64}$/, 'the control plane: checksum/config');

    const platform = async (patch: Record<string, unknown>): Promise<Record<string, Record<string, string>>> =>
      annotations(await template(helm, 'platform', merged(full.platform!, patch)));
    const rekeyed = await platform({ database: { urlKey: 'uri' } });
    for (const name of ['gsp-platform-api-server', 'gsp-platform-cluster-proxy'])
      t.not(rekeyed[name]!['checksum/secret'], before[name]!['checksum/secret'], `${name}: another database key`);
    const signing = await platform({ apiServer: { kubeconfig: { signingKey: { existingSecret: 'gsp-signing-2' } } } });
    t.not(
      signing['gsp-platform-api-server']!['checksum/secret'],
      before['gsp-platform-api-server']!['checksum/secret'],
    );
    t.equal(
      signing['gsp-platform-cluster-proxy']!['checksum/secret'],
      before['gsp-platform-cluster-proxy']!['checksum/secret'],
      'the proxy, which does not read the signing key, stays',
    );
    const logs = await platform({ logLevel: 'debug', apiServer: { replicaCount: 4 } });
    t.equal(logs['gsp-platform-api-server']!['checksum/secret'], before['gsp-platform-api-server']!['checksum/secret']);

    const controlPlane = async (patch: Record<string, unknown>): Promise<Record<string, string>> =>
      annotations(await template(helm, 'control-plane', merged(full['control-plane']!, patch)))['gsp-control-plane']!;
    const roles = await controlPlane({ customRoles: { auditor: { inherits: ['viewer'] } } });
    t.not(roles['checksum/config'], before['gsp-control-plane']!['checksum/config'], 'another role rolls the pods');
    const scaled = await controlPlane({ replicaCount: 5, podDisruptionBudget: { minAvailable: 2 } });
    t.equal(scaled['checksum/config'], before['gsp-control-plane']!['checksum/config'], 'a scale does not');
    const panel = { publicUrl: 'https://cp.example.com/panel/', ...panelSignIn };
    const signIn = await controlPlane({ panel });
    t.not(signIn['checksum/secret'], before['gsp-control-plane']!['checksum/secret'], "the panel client's Secret");
    const rotated = await controlPlane({
      panel: merged(panel, { oidc: { clientSecret: { existingSecret: 'gsp-panel-2' } } }),
    });
    t.not(rotated['checksum/secret'], signIn['checksum/secret'], 'and another one');
    const rollme = await controlPlane({ podAnnotations: { rollme: '1764000000' } });
    t.equal(rollme.rollme, '1764000000', 'podAnnotations force a rollout when a Secret changed out of helm');
  },
);

/** Every metric the services export, from their source: `createServiceMetrics(prefix)` and literal names. */
function exportedMetrics(): Set<string> {
  const files = ['services', 'packages'].flatMap((top) =>
    readdirSync(join(root, top)).flatMap((workspace) => {
      const src = join(root, top, workspace, 'src');
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((entry) => {
          const path = join(dir, entry);
          return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
        });
      try {
        return walk(src);
      } catch {
        return [];
      }
    }),
  );
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/name: '(gsp_[a-z_]+)'/g)) names.add(m[1]!);
    const prefix = /createServiceMetrics\('(gsp_[a-z]+)'\)/.exec(text)?.[1];
    if (prefix === undefined) continue;
    for (const m of text.matchAll(/\.(?:gauge|counter)\(\s*'([a-z_]+)'/g)) names.add(`${prefix}_${m[1]!}`);
    if (/\.httpRequests\(/.test(text))
      ['requests_total', 'request_duration_seconds'].forEach((suffix) => names.add(`${prefix}_${suffix}`));
  }
  return names;
}

type Rules = Manifest & {
  spec: { groups: { rules: { alert: string; expr: string; labels: { severity: string } }[] }[] };
};
type Monitor = Manifest & {
  spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
};

t.test(
  'monitoring: ServiceMonitors scrape the metrics Services, and every alert uses a metric that exists',
  async (t) => {
    const exported = exportedMetrics();
    t.ok(
      exported.has('gsp_audit_export_oldest_age_seconds') && exported.has('gsp_proxy_tunnels'),
      'the scan finds them',
    );
    const required: Record<string, string[]> = {
      platform: [
        'GspApiServerErrors',
        'GspClusterProxyErrors',
        'GspAuditExportBehind',
        'GspNoTunnels',
        'GspTunnelsUneven',
        'GspFlagStoreDown',
        'GspFlagsServedStale',
      ],
      'control-plane': [
        'GspControlPlaneErrors',
        'GspAuditExportBehind',
        'GspAuditRecordsDropped',
        'GspApiKeysNotSynced',
      ],
      'tunnel-agent': ['GspTunnelAgentDisconnected', 'GspTunnelAgentPartialCoverage'],
    };
    for (const chart of Object.keys(hardened)) {
      const docs = await template(helm, chart, hardened[chart]!);
      const services = docs.filter((d) => d.kind === 'Service') as (Manifest & {
        metadata: { labels: Record<string, string> };
        spec: { ports: { name: string }[] };
      })[];
      const monitors = docs.filter((d) => d.kind === 'ServiceMonitor') as Monitor[];
      t.ok(monitors.length > 0, `${chart}: ServiceMonitors`);
      for (const monitor of monitors) {
        const matched = services.filter((s) => selects(monitor.spec.selector.matchLabels, s.metadata.labels));
        t.equal(matched.length, 1, `${monitor.metadata.name}: selects exactly one Service`);
        t.match(matched[0]?.metadata.name, /-metrics$/, 'a metrics one');
        t.ok(
          matched[0]?.spec.ports.some((p) => p.name === monitor.spec.endpoints[0]!.port),
          'on its metrics port',
        );
        t.match(monitor.metadata, { labels: { release: 'kube-prometheus-stack' } }, "with Prometheus's selector label");
      }
      const [rules] = docs.filter((d) => d.kind === 'PrometheusRule') as Rules[];
      const alerts = rules!.spec.groups.flatMap((g) => g.rules);
      t.same(
        alerts.map((a) => a.alert),
        required[chart],
        `${chart}: the alerts`,
      );
      for (const alert of alerts) {
        const metrics = [...alert.expr.matchAll(/\bgsp_[a-z_]+\b/g)].map((m) => m[0]);
        t.ok(metrics.length > 0, `${alert.alert} uses our metrics`);
        for (const metric of metrics) t.ok(exported.has(metric), `${alert.alert}: ${metric} is exported by a service`);
        for (const job of alert.expr.matchAll(/job="([^"]+)"/g))
          t.ok(
            services.some((s) => s.metadata.name === job[1] && s.metadata.name.endsWith('-metrics')),
            `${alert.alert}: job ${job[1]} is a metrics Service of the release`,
          );
        t.ok(['warning', 'critical'].includes(alert.labels.severity), `${alert.alert}: a severity`);
      }
      const plain = await template(helm, chart, full[chart]!);
      t.same(
        plain.filter((d) => ['ServiceMonitor', 'PrometheusRule'].includes(d.kind)),
        [],
        `${chart}: none unless asked for`,
      );
    }
  },
);
