import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { FLAGS } from '@gsp/flags-client';
import {
  containerEnv,
  deployments,
  helmIn,
  load,
  loaders,
  podName,
  podSpec,
  template,
  valuesArgs,
  chartDir,
  imageRef,
  servicesVersion,
} from './render.js';
import type { Env, Manifest } from './render.js';
import { audit, full, secrets } from './values.js';
import type { AuditExportConfig } from '@gsp/audit-export';

/** The variables read outside the config loaders: the flag pins, read by @gsp/flags-client. */
const readElsewhere = new Set(FLAGS.map((flag) => flag.envVar));
const kubeletVars = new Set(['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']);

const helm = helmIn();
t.teardown(() => helm.close());

function eachContainer(docs: Manifest[]): {
  deployment: Manifest;
  env: Env;
  name: string;
  spec: ReturnType<typeof podSpec>;
  container: ReturnType<typeof podSpec>['containers'][number];
}[] {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-chart-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return deployments(docs).flatMap((deployment) => {
    const spec = podSpec(deployment);
    return spec.containers.map((container) => ({
      deployment,
      spec,
      container,
      name: container.name,
      env: containerEnv(docs, spec, container, secrets, join(dir, deployment.metadata.name)),
    }));
  });
}

for (const chart of Object.keys(full)) {
  t.test(`${chart}: lints clean and every variable it sets is accepted, and read, by the service`, async (t) => {
    const lint = await helm.run(['lint', '--strict', chartDir(chart), ...valuesArgs(full[chart]!)]);
    t.equal(lint.code, 0, `helm lint --strict: ${lint.stdout}${lint.stderr}`);
    const docs = await template(helm, chart, full[chart]!);
    const containers = eachContainer(docs);
    t.ok(containers.length > 0, 'renders at least one container');
    for (const { name, env } of containers) {
      const { read } = load(name, env);
      const unread = Object.keys(env).filter(
        (key) => !read.has(key) && !readElsewhere.has(key) && !kubeletVars.has(key),
      );
      t.same(unread, [], `${name}: every variable the chart sets is one the service reads`);
    }
  });

  t.test(
    `${chart}: runs as non-root on a read-only root, with probes on real endpoints, and no secret in the manifest`,
    async (t) => {
      const docs = await template(helm, chart, full[chart]!);
      const text = JSON.stringify(docs);
      const leaked = Object.values(secrets)
        .flatMap((data) => Object.values(data))
        .filter((value) => text.includes(value.slice(0, 40)));
      t.same(leaked.length, 0, 'no Secret value appears in the rendered manifests');
      for (const { deployment, spec, container } of eachContainer(docs)) {
        t.equal(spec.securityContext?.runAsNonRoot, true, `${deployment.metadata.name}: runAsNonRoot`);
        t.equal(
          container.securityContext?.readOnlyRootFilesystem,
          true,
          `${container.name}: read-only root filesystem`,
        );
        t.equal(
          container.securityContext?.allowPrivilegeEscalation,
          false,
          `${container.name}: no privilege escalation`,
        );
        t.same(container.securityContext?.capabilities, { drop: ['ALL'] }, `${container.name}: drops every capability`);
        t.equal(container.readinessProbe?.httpGet?.path, '/readyz', `${container.name}: readiness on /readyz`);
        t.equal(container.livenessProbe?.httpGet?.path, '/healthz', `${container.name}: liveness on /healthz`);
        const portNames = (container.ports ?? []).map((p) => p.name);
        t.ok(
          portNames.includes(String(container.readinessProbe?.httpGet?.port)),
          `${container.name}: the probe's port is declared`,
        );
      }
    },
  );
}

t.test(
  'platform: one value pins the switch on the API server and the proxy alike, as a string or a bool',
  async (t) => {
    for (const pinned of ['true', 'false', true, false]) {
      const docs = await template(helm, 'platform', { ...full.platform, cliAccess: { pinned } });
      const pins = eachContainer(docs).map(({ name, env }) => [name, env.SERVICE_CLI_ACCESS_ENABLED]);
      t.same(
        pins,
        [
          ['api-server', String(pinned)],
          ['cluster-proxy', String(pinned)],
        ],
        `pinned: ${JSON.stringify(pinned)}`,
      );
    }
    const unpinned = await template(helm, 'platform', { ...full.platform, cliAccess: { pinned: '' } });
    t.same(
      eachContainer(unpinned).map(({ env }) => env.SERVICE_CLI_ACCESS_ENABLED),
      [undefined, undefined],
      'unpinned: neither process is pinned',
    );
  },
);

t.test(
  'platform: an external OFREP provider reaches the API server alone, with its bearer token read from a Secret',
  async (t) => {
    const docs = await template(helm, 'platform', full.platform!);
    const env = Object.fromEntries(eachContainer(docs).map(({ name, env }) => [name, env]));
    const api = env['api-server']!;
    t.equal(api.SERVICE_FLAGS_PROVIDER, 'ofrep');
    t.equal(api.OFREP_URL, 'http://flipt.flipt.svc:8080');
    const config = loaders['api-server']!(api) as { flags: { ofrep: unknown } };
    t.same(
      config.flags.ofrep,
      { url: 'http://flipt.flipt.svc:8080', headers: { authorization: `Bearer ${secrets['gsp-ofrep']!.token}` } },
      'the API server resolves flags outside the registry there, sending the mounted token',
    );
    const proxy = env['cluster-proxy']!;
    t.same(
      Object.keys(proxy).filter((name) => name.startsWith('OFREP') || name === 'SERVICE_FLAGS_PROVIDER'),
      [],
      'the proxy, which reads only the kill switch, gets no provider',
    );

    const databaseOnly = without(full.platform!, { apiServer: { ...platformApi, flags: { provider: 'database' } } });
    const plain = eachContainer(await template(helm, 'platform', databaseOnly)).find((c) => c.name === 'api-server')!;
    t.equal(plain.env.SERVICE_FLAGS_PROVIDER, 'database');
    t.equal(plain.env.OFREP_URL, undefined);
    t.equal((loaders['api-server']!(plain.env) as { flags: { ofrep: unknown } }).flags.ofrep, undefined);
  },
);

t.test('platform: an inconsistent flag provider is refused, naming the value to set', async (t) => {
  const withFlags = (flags: Record<string, unknown>): Record<string, unknown> =>
    without(full.platform!, { apiServer: { ...platformApi, flags } });
  const refusals: [Record<string, unknown>, RegExp][] = [
    [
      withFlags({ provider: 'ofrep' }),
      /apiServer\.flags\.ofrep\.url is required with apiServer\.flags\.provider=ofrep/,
    ],
    [
      withFlags({ provider: 'ofrep', ofrep: { bearerToken: { existingSecret: 'gsp-ofrep' } } }),
      /apiServer\.flags\.ofrep\.url is required/,
    ],
    [
      withFlags({ provider: 'database', ofrep: { url: 'http://flipt.flipt.svc:8080' } }),
      /apiServer\.flags\.ofrep is set but apiServer\.flags\.provider is "database"/,
    ],
    [
      withFlags({ ofrep: { bearerToken: { existingSecret: 'gsp-ofrep' } } }),
      /apiServer\.flags\.ofrep is set but apiServer\.flags\.provider is "database"/,
    ],
    [withFlags({ provider: 'flagd' }), /at '\/apiServer\/flags\/provider'/],
    [withFlags({ provider: 'ofrep', ofrep: { url: 'flipt:8080' } }), /at '\/apiServer\/flags\/ofrep\/url'/],
    [
      without(full.platform!, { apiServer: { ...platformApi, extraEnv: [{ name: 'OFREP_URL', value: 'http://x' }] } }),
      /extraEnv: OFREP_URL may not be set here; set apiServer\.flags\.ofrep\.url instead/,
    ],
    [
      without(full.platform!, {
        apiServer: {
          ...platformApi,
          flags: { provider: 'database' },
          extraEnv: [{ name: 'OFREP_URL', value: 'http://x' }],
        },
      }),
      /extraEnv: OFREP_URL may not be set here; set apiServer\.flags\.ofrep\.url instead/,
    ],
  ];
  for (const [values, message] of refusals) {
    const result = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
    t.not(result.code, 0, `refuses: ${message.source}`);
    t.match(result.stderr, message);
  }
});

t.test('platform: a development install without certificates is possible, but only when asked for', async (t) => {
  const docs = await template(helm, 'platform', {
    ...full.platform,
    clusterProxy: {
      publicUrl: 'https://127.0.0.1:8443',
      tls: { insecureSkipVerify: true },
      tunnelTls: { terminatedInFront: true },
    },
  });
  const env = Object.fromEntries(eachContainer(docs).map(({ name, env }) => [name, env]));
  t.equal(
    env['api-server']?.PROXY_INSECURE_SKIP_TLS_VERIFY,
    'true',
    'kubeconfigs skip verifying the self-signed certificate',
  );
  t.equal(env['cluster-proxy']?.TLS_CERT_FILE, undefined, 'the proxy generates its certificate');
  t.equal(
    env['cluster-proxy']?.TUNNEL_TLS_CERT_FILE,
    undefined,
    'the tunnel speaks h2c behind the terminating load balancer',
  );
});

t.test("platform: the proxy finds the API server through the chart's own Service", async (t) => {
  const docs = await template(helm, 'platform', full.platform!);
  const proxy = eachContainer(docs).find((c) => c.name === 'cluster-proxy')!;
  const api = docs.find((d) => d.kind === 'Service' && d.metadata.name.endsWith('-api-server'))!;
  t.equal(proxy.env.API_SERVER_URL, `http://${api.metadata.name}.gsp.svc:80`);
  const services = docs
    .filter((d) => d.kind === 'Service')
    .map((d) => [d.metadata.name, (d as unknown as { spec: { type: string } }).spec.type]);
  t.same(
    services.filter(([name]) => String(name).endsWith('-metrics')),
    [
      ['gsp-platform-api-server-metrics', 'ClusterIP'],
      ['gsp-platform-cluster-proxy-metrics', 'ClusterIP'],
    ],
    'metrics are not exposed outside the cluster',
  );
});

interface Spec<T> {
  spec: T;
}
type ProxyDeployment = Spec<{
  replicas: number;
  minReadySeconds: number;
  strategy: { type: string; rollingUpdate?: { maxSurge: number; maxUnavailable: number } };
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> } };
}>;
type Service = Spec<{
  type: string;
  sessionAffinity?: string;
  selector: Record<string, string>;
  ports: { name: string; port: number; targetPort: string }[];
}>;
type Budget = Spec<{
  maxUnavailable?: number;
  minAvailable?: number;
  selector: { matchLabels: Record<string, string> };
}>;

const named = <T>(docs: Manifest[], kind: string, name: string): T | undefined =>
  docs.find((d) => d.kind === kind && d.metadata.name === name) as T | undefined;

t.test(
  'platform: with clusterProxy.replicaCount 3, three proxies that every agent covers, one at a time out of service',
  async (t) => {
    const values = { ...full.platform, clusterProxy: { ...platformProxy, replicaCount: 3 } };
    const docs = await template(helm, 'platform', values);
    const deployment = named<Manifest & ProxyDeployment>(docs, 'Deployment', 'gsp-platform-cluster-proxy')!;
    const labels = deployment.spec.template.metadata.labels;
    t.equal(deployment.spec.replicas, 3, 'three replicas');
    t.same(
      deployment.spec.strategy,
      { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      'a rolling update starts a new replica before it stops an old one',
    );
    t.equal(deployment.spec.minReadySeconds, 10, 'and leaves the agents time to dial the new one');

    const service = named<Service>(docs, 'Service', 'gsp-platform-cluster-proxy')!;
    t.equal(service.spec.type, 'LoadBalancer');
    t.same(
      service.spec.ports.map((p) => [p.name, p.port, p.targetPort]),
      [
        ['kubectl', 443, 'kubectl'],
        ['tunnel', 8444, 'tunnel'],
      ],
      'one load-balanced address for kubectl and for the agents',
    );
    t.same(service.spec.selector, labels, 'that reaches every replica');
    t.not(service.spec.sessionAffinity, 'ClientIP', "an agent's repeated dials are spread over the replicas");

    const budget = named<Manifest & Budget>(docs, 'PodDisruptionBudget', 'gsp-platform-cluster-proxy')!;
    t.equal((budget as unknown as { apiVersion: string }).apiVersion, 'policy/v1');
    t.same(budget.spec.maxUnavailable, 1, 'a node drain evicts one replica at a time');
    t.same(budget.spec.selector.matchLabels, labels);

    const spec = podSpec(deployment);
    t.same(
      spec.topologySpreadConstraints,
      ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
        maxSkew: 1,
        topologyKey,
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: labels },
      })),
      'spread over nodes and zones, as a preference',
    );
    const proxy = spec.containers[0]!;
    t.same(
      proxy.readinessProbe?.httpGet,
      { scheme: 'HTTPS', path: '/readyz', port: 'kubectl' },
      'unready once it drains',
    );
    t.same(proxy.lifecycle, { preStop: { sleep: { seconds: 5 } } }, 'serves on 5 s while its endpoint is removed');
    const { env } = eachContainer(docs).find((c) => c.name === 'cluster-proxy')!;
    t.equal(env.DRAIN_GRACE, '25s', 'then gives in-flight requests and streams 25 s');
    t.equal(spec.terminationGracePeriodSeconds, 5 + 25 + 5, 'before the kubelet kills it: preStop, drain, a margin');
    t.equal(env.TUNNEL_WAIT, '5s');
    t.same(
      proxy.env?.find((v) => v.name === 'PROXY_REPLICA_ID')?.valueFrom,
      { fieldRef: { fieldPath: 'metadata.name' } },
      'each replica is named by its pod',
    );
    const config = loaders['cluster-proxy']!(env) as { replicaId: string };
    t.equal(config.replicaId, podName(proxy), 'which the proxy takes as its replica id');
    t.same(
      docs.filter((d) => /Role|ServiceAccount|Lease/.test(d.kind)).map((d) => d.kind),
      [],
      'replicas count each other in PostgreSQL: no ServiceAccount, Role or Lease',
    );
    t.equal((spec as unknown as { automountServiceAccountToken: boolean }).automountServiceAccountToken, false);
  },
);

t.test('platform: drain, spread and a single proxy are values', async (t) => {
  const proxyWith = (patch: Record<string, unknown>): Record<string, unknown> =>
    without(full.platform!, { clusterProxy: { ...platformProxy, ...patch } });
  const single = await template(helm, 'platform', proxyWith({ replicaCount: 1 }));
  t.equal(named<ProxyDeployment>(single, 'Deployment', 'gsp-platform-cluster-proxy')!.spec.replicas, 1);
  t.notOk(named(single, 'PodDisruptionBudget', 'gsp-platform-cluster-proxy'), 'no budget for a single replica');

  const tuned = await template(
    helm,
    'platform',
    proxyWith({
      drain: { graceSeconds: 90, preStopSeconds: 10 },
      tunnelWait: '3s',
      topologySpread: { hostname: 'DoNotSchedule', zone: 'ScheduleAnyway' },
    }),
  );
  const spec = podSpec(named<Manifest>(tuned, 'Deployment', 'gsp-platform-cluster-proxy')!);
  const { env } = eachContainer(tuned).find((c) => c.name === 'cluster-proxy')!;
  t.equal(env.DRAIN_GRACE, '90s');
  t.equal(env.TUNNEL_WAIT, '3s');
  t.same(spec.containers[0]!.lifecycle, { preStop: { sleep: { seconds: 10 } } });
  t.equal(spec.terminationGracePeriodSeconds, 105, 'the grace period follows: 10 + 90 + 5');
  const liveness = spec.containers[0]!.livenessProbe!;
  t.ok(
    liveness.periodSeconds! * liveness.failureThreshold! > 105,
    'and the liveness probe, failing on the closed port, cannot restart the replica mid-drain',
  );
  t.same(
    spec.topologySpreadConstraints?.map((c) => [c.topologyKey, c.whenUnsatisfiable]),
    [
      ['kubernetes.io/hostname', 'DoNotSchedule'],
      ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
    ],
  );

  const plain = podSpec(
    named<Manifest>(
      await template(
        helm,
        'platform',
        proxyWith({ drain: { preStopSeconds: 0 }, topologySpread: { hostname: '', zone: '' } }),
      ),
      'Deployment',
      'gsp-platform-cluster-proxy',
    )!,
  );
  t.equal(plain.containers[0]!.lifecycle, undefined, 'no preStop hook of 0 s');
  t.equal(plain.terminationGracePeriodSeconds, 30);
  t.equal(plain.topologySpreadConstraints, undefined, 'no spread when none is asked for');
});

t.test('platform: a proxy count below 1 is refused, by the schema and by the template behind it', async (t) => {
  for (const replicaCount of [0, -1]) {
    const values = without(full.platform!, { clusterProxy: { ...platformProxy, replicaCount } });
    const checked = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
    t.not(checked.code, 0);
    t.match(checked.stderr, /at '\/clusterProxy\/replicaCount': minimum/);
    const unchecked = await helm.run([
      'template',
      'gsp',
      chartDir('platform'),
      '--skip-schema-validation',
      ...valuesArgs(values),
    ]);
    t.not(unchecked.code, 0);
    t.match(
      unchecked.stderr,
      `clusterProxy.replicaCount must be at least 1, got ${replicaCount}: ` +
        'with no proxy running kubectl cannot reach any cluster',
    );
  }
});

t.test(
  "platform: the console's sign-in, the trusted proxies and the agents' tunnel address reach the API server",
  async (t) => {
    const docs = await template(helm, 'platform', full.platform!);
    const { env } = eachContainer(docs).find((c) => c.name === 'api-server')!;
    const config = loaders['api-server']!(env) as {
      consoleAuth: { clientId: string; clientSecret: string; publicUrl: string; redirectUri: string } | undefined;
      trustProxy: unknown;
      proxyTunnelPublicUrl: string;
    };
    t.match(
      config.consoleAuth,
      {
        clientId: 'gsp-console',
        clientSecret: secrets['gsp-console']!['client-secret'],
        publicUrl: 'https://platform.example.com/console/',
        redirectUri: 'https://platform.example.com/console/auth/callback',
      },
      "the console signs in with its client, the secret read from the operator's Secret",
    );
    t.equal(env.CONSOLE_OIDC_CLIENT_SECRET, undefined, 'the secret is a mounted file, never a variable');
    t.equal(config.trustProxy, '10.0.0.0/8');
    t.equal(
      config.proxyTunnelPublicUrl,
      'https://kubectl.example.com:8444',
      "by default the proxy's host, tunnel port",
    );

    const given = without(full.platform!, {
      clusterProxy: { ...platformProxy, tunnelPublicUrl: 'https://tunnel.example.com:443' },
    });
    const api = eachContainer(await template(helm, 'platform', given)).find((c) => c.name === 'api-server')!;
    t.equal(api.env.PROXY_TUNNEL_PUBLIC_URL, 'https://tunnel.example.com:443');

    const { console: _console, ...noConsole } = platformApi;
    const off = eachContainer(await template(helm, 'platform', without(full.platform!, { apiServer: noConsole }))).find(
      (c) => c.name === 'api-server',
    )!;
    t.same(
      Object.keys(off.env).filter((name) => name.startsWith('CONSOLE_')),
      [],
      'no console values: no console sign-in',
    );
    t.equal((loaders['api-server']!(off.env) as { consoleAuth: unknown }).consoleAuth, undefined);
  },
);

t.test('platform: a half-configured console is refused, naming what to set', async (t) => {
  const withConsole = (console: Record<string, unknown>, auth?: Record<string, unknown>): Record<string, unknown> =>
    without(full.platform!, { apiServer: { ...platformApi, console, ...(auth ? { auth } : {}) } });
  const together = /apiServer\.console: set publicUrl, oidc\.clientId and oidc\.clientSecret\.existingSecret together/;
  const refusals: [Record<string, unknown>, RegExp][] = [
    [withConsole({ publicUrl: 'https://platform.example.com/console/' }), together],
    [withConsole({ oidc: { clientId: 'gsp-console' } }), together],
    [withConsole({ oidc: { clientId: 'gsp-console', clientSecret: { existingSecret: 'gsp-console' } } }), together],
    [
      withConsole(
        {
          publicUrl: 'https://platform.example.com/console/',
          oidc: { clientId: 'gsp-console', clientSecret: { existingSecret: 'gsp-console' } },
        },
        { jwtSecret: { existingSecret: 'gsp-jwt' } },
      ),
      /apiServer\.console needs apiServer\.auth\.oidc\.issuerUrl/,
    ],
    [withConsole({ publicUrl: 'https://platform.example.com/console/?x=1' }), /at '\/apiServer\/console\/publicUrl'/],
    [
      without(full.platform!, {
        apiServer: { ...platformApi, extraEnv: [{ name: 'CONSOLE_OIDC_CLIENT_SECRET', value: 'in-plain-sight' }] },
      }),
      new RegExp(
        'extraEnv: CONSOLE_OIDC_CLIENT_SECRET may not be set here; ' +
          'set apiServer\\.console\\.oidc\\.clientSecret\\.existingSecret',
      ),
    ],
  ];
  for (const [values, message] of refusals) {
    const result = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
    t.not(result.code, 0, `refuses: ${message.source}`);
    t.match(result.stderr, message);
  }
});

const without = (values: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> => ({
  ...values,
  ...patch,
});
const platformApi = full.platform!.apiServer as Record<string, unknown>;
const platformProxy = full.platform!.clusterProxy as Record<string, unknown>;
const controlPlaneAuth = full['control-plane']!.auth as Record<string, unknown>;

// helm 4's lint reports a template's `fail` or `required` only as a log line and exits 0, so each
// value an installation cannot do without is required by the schema too; the template's own
// refusal stays behind it for `--skip-schema-validation`.
t.test('a missing required value stops helm template and helm lint alike, naming the value', async (t) => {
  const cases: [string, Record<string, unknown>, RegExp, RegExp][] = [
    [
      'platform',
      without(full.platform!, { database: { existingSecret: '' } }),
      /at '\/database\/existingSecret'/,
      /database\.existingSecret/,
    ],
    [
      'platform',
      without(full.platform!, { apiServer: { ...platformApi, kubeconfig: { signingKey: { existingSecret: '' } } } }),
      /at '\/apiServer\/kubeconfig\/signingKey\/existingSecret'/,
      /signingKey\.existingSecret is required: without a shared key/,
    ],
    [
      'platform',
      without(full.platform!, {
        apiServer: { ...platformApi, auth: { jwtSecret: { existingSecret: '' }, oidc: { issuerUrl: '' } } },
      }),
      /at '\/apiServer\/auth': 'anyOf' failed/,
      /set jwtSecret\.existingSecret, oidc\.issuerUrl/,
    ],
    [
      'platform',
      without(full.platform!, {
        apiServer: { ...platformApi, auth: { oidc: { issuerUrl: 'https://id.example.com', audience: '' } } },
      }),
      /at '\/apiServer\/auth\/oidc\/audience'/,
      /oidc\.audience is required with an issuer/,
    ],
    [
      'platform',
      without(full.platform!, { clusterProxy: { ...platformProxy, publicUrl: '' } }),
      /at '\/clusterProxy\/publicUrl'/,
      /clusterProxy\.publicUrl/,
    ],
    [
      'platform',
      without(full.platform!, { clusterProxy: { ...platformProxy, tls: { existingSecret: '' } } }),
      /at '\/clusterProxy\/tls': 'anyOf' failed/,
      /clusterProxy\.tls\.existingSecret .* is required/,
    ],
    [
      'platform',
      without(full.platform!, { clusterProxy: { ...platformProxy, tunnelTls: { existingSecret: '' } } }),
      /at '\/clusterProxy\/tunnelTls': 'anyOf' failed/,
      /agents send their token on the tunnel port/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, { auth: { ...controlPlaneAuth, basic: { user: 'admin', existingSecret: '' } } }),
      /at '\/auth\/basic\/existingSecret'/,
      /auth\.basic\.existingSecret/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, {
        auth: { ...controlPlaneAuth, basic: { user: '', existingSecret: 'cp-basic' } },
      }),
      /at '\/auth\/basic\/user'/,
      /auth\.basic\.user is required/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, { auth: { ...controlPlaneAuth, oidc: { issuerUrl: '', clientId: 'gsp-cp' } } }),
      /at '\/auth\/oidc\/issuerUrl'/,
      /auth\.oidc\.issuerUrl is required/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, { serviceAccount: { create: false } }),
      /at '\/serviceAccount\/name'/,
      /serviceAccount\.name is required/,
    ],
    [
      'tunnel-agent',
      without(full['tunnel-agent']!, { agentToken: { existingSecret: '' } }),
      /at '\/agentToken\/existingSecret'/,
      /agentToken\.existingSecret/,
    ],
    ['tunnel-agent', without(full['tunnel-agent']!, { clusterId: '' }), /at '\/clusterId'/, /clusterId .* is required/],
    [
      'tunnel-agent',
      without(full['tunnel-agent']!, { proxyTunnelUrl: '', proxyCa: { existingSecret: '' } }),
      /at '\/proxyTunnelUrl'/,
      /proxyTunnelUrl .* is required/,
    ],
  ];
  for (const [chart, values, path, reason] of cases) {
    const rendered = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(rendered.code, 0, `${chart}: helm template refuses ${path.source}`);
    t.match(rendered.stderr, path);
    const lint = await helm.run(['lint', chartDir(chart), ...valuesArgs(values)]);
    t.not(lint.code, 0, `${chart}: helm lint refuses ${path.source}`);
    t.match(lint.stdout + lint.stderr, path);
    const unchecked = await helm.run([
      'template',
      'gsp',
      chartDir(chart),
      '--skip-schema-validation',
      ...valuesArgs(values),
    ]);
    t.not(unchecked.code, 0, `${chart}: without the schema, the template still refuses: ${reason.source}`);
    t.match(unchecked.stderr, reason);
  }
});

t.test(
  "helm lint fails on each chart's default values, naming every value they lack, " +
    'and passes once a values file gives them',
  async (t) => {
    const lacking: Record<string, string[]> = {
      platform: [
        '/database/existingSecret',
        '/apiServer/auth',
        '/apiServer/kubeconfig/signingKey/existingSecret',
        '/clusterProxy/publicUrl',
        '/clusterProxy/tls',
        '/clusterProxy/tunnelTls',
      ],
      'control-plane': ['/auth/oidc/issuerUrl', '/auth/oidc/clientId'],
      'tunnel-agent': ['/proxyTunnelUrl', '/clusterId', '/agentToken/existingSecret'],
    };
    const dir = mkdtempSync(join(tmpdir(), 'gsp-values-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    for (const chart of Object.keys(full)) {
      const defaults = await helm.run(['lint', chartDir(chart)]);
      t.not(defaults.code, 0, `${chart}: helm lint with the default values fails`);
      for (const path of lacking[chart]!) t.match(defaults.stdout, `at '${path}'`, `${chart}: names ${path}`);
      const file = join(dir, `${chart}.yaml`);
      writeFileSync(file, stringify(full[chart]));
      const given = await helm.run(['lint', chartDir(chart), '--values', file]);
      t.equal(given.code, 0, `${chart}: helm lint -f values.yaml passes: ${given.stdout}${given.stderr}`);
    }
  },
);

t.test(
  "platform: SERVICE_CLI_ACCESS_ENABLED in the API server's or the proxy's extraEnv is refused, pinned or not",
  async (t) => {
    // Each process reads its own pin: set on one alone, the proxy could answer 410 while the API says enabled.
    for (const { envVar } of FLAGS) {
      for (const component of ['apiServer', 'clusterProxy'] as const) {
        for (const pinned of ['', 'true']) {
          const base = full.platform![component] as Record<string, unknown>;
          const values = without(full.platform!, {
            cliAccess: { pinned },
            [component]: { ...base, extraEnv: [{ name: envVar, value: 'false' }] },
          });
          const result = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
          t.not(result.code, 0, `${component}.extraEnv: ${envVar} with cliAccess.pinned=${JSON.stringify(pinned)}`);
          t.match(result.stderr, new RegExp(`extraEnv: ${envVar} may not be set here; set cliAccess\\.pinned`));
        }
      }
    }
  },
);

t.test(
  "one version: each chart's appVersion is the services' version, and its images are tagged with it by default",
  async (t) => {
    const repositories: Record<string, Record<string, string>> = {
      platform: { 'api-server': 'gsp/api-server', 'cluster-proxy': 'gsp/cluster-proxy' },
      'control-plane': { 'control-plane': 'gsp/control-plane' },
      'tunnel-agent': { 'tunnel-agent': 'gsp/tunnel-agent' },
    };
    for (const chart of Object.keys(full)) {
      const meta = parse(readFileSync(join(chartDir(chart), 'Chart.yaml'), 'utf8')) as { appVersion: string };
      t.equal(meta.appVersion, servicesVersion, `${chart}: appVersion ${meta.appVersion} is the services' version`);
      const images = (docs: Manifest[]): Record<string, string> =>
        Object.fromEntries(eachContainer(docs).map(({ container }) => [container.name, container.image]));
      t.same(
        images(await template(helm, chart, full[chart]!)),
        Object.fromEntries(Object.entries(repositories[chart]!).map(([name, repo]) => [name, imageRef(repo)])),
        `${chart}: every image is <repository>:${servicesVersion}`,
      );
      const tagged = images(await template(helm, chart, { ...full[chart], image: { tag: '0.1.0-patched.1' } }));
      t.same(
        Object.values(tagged),
        Object.values(repositories[chart]!).map((repo) => `${repo}:0.1.0-patched.1`),
        `${chart}: image.tag, when given, replaces the version`,
      );
    }
  },
);

t.test(
  'the charts share one gsp.noDuplicateEnv and one set of audit helpers, ' +
    'as a parent chart installing two of them would',
  async (t) => {
    const definition = (chart: string): string => {
      const text = readFileSync(join(chartDir(chart), 'templates', '_helpers.tpl'), 'utf8');
      return text.slice(text.indexOf('{{- define "gsp.noDuplicateEnv"'));
    };
    for (const chart of ['control-plane', 'tunnel-agent'])
      t.equal(definition(chart), definition('platform'), `${chart}'s copy is the platform's`);
    const helpers = (chart: string, file: string): string =>
      readFileSync(join(chartDir(chart), 'templates', file), 'utf8');
    t.equal(
      helpers('control-plane', '_audit.tpl'),
      helpers('platform', '_audit.tpl'),
      'and one gsp.auditSinkEnv for both exporters',
    );
    for (const chart of ['control-plane', 'tunnel-agent'])
      t.equal(
        helpers(chart, '_gsp.tpl'),
        helpers('platform', '_gsp.tpl'),
        `and ${chart} has the same exposure, spread, policy, checksum and monitoring helpers`,
      );
  },
);

t.test(
  'resource names say the release and the chart once: release gsp of gsp-platform makes gsp-platform-api-server',
  async (t) => {
    const cases: [string, string, Record<string, unknown>, string[]][] = [
      ['platform', 'gsp', {}, ['gsp-platform-api-server', 'gsp-platform-cluster-proxy']],
      ['platform', 'gsp-platform', {}, ['gsp-platform-api-server', 'gsp-platform-cluster-proxy']],
      ['platform', 'gsp-platform-eu', {}, ['gsp-platform-eu-api-server', 'gsp-platform-eu-cluster-proxy']],
      ['platform', 'eu', {}, ['eu-gsp-platform-api-server', 'eu-gsp-platform-cluster-proxy']],
      [
        'platform',
        'gsp',
        { fullnameOverride: 'gsp-gsp-platform' },
        ['gsp-gsp-platform-api-server', 'gsp-gsp-platform-cluster-proxy'],
      ],
      ['control-plane', 'gsp', {}, ['gsp-control-plane']],
      ['control-plane', 'gsp-control-plane', {}, ['gsp-control-plane']],
      ['control-plane', 'eu', {}, ['eu-gsp-control-plane']],
      ['tunnel-agent', 'gsp', {}, ['gsp-tunnel-agent']],
      ['tunnel-agent', 'gsp-tunnel-agent', {}, ['gsp-tunnel-agent']],
    ];
    for (const [chart, release, patch, expected] of cases) {
      const docs = await template(helm, chart, { ...full[chart], ...patch }, 'gsp', release);
      t.same(
        deployments(docs)
          .map((d) => d.metadata.name)
          .sort(),
        expected,
        `${chart}, release ${release}${patch.fullnameOverride ? ' with fullnameOverride' : ''}`,
      );
      if (release !== 'gsp' || patch.fullnameOverride) continue;
      // Cluster-scoped names carry the namespace (gsp) first, which may repeat; namespaced ones may not.
      const repeated = docs.filter((d) => !d.kind.startsWith('Cluster') && d.metadata.name.includes('gsp-gsp'));
      t.same(
        repeated.map((d) => `${d.kind}/${d.metadata.name}`),
        [],
        `${chart}: no namespaced name repeats gsp`,
      );
    }
  },
);

t.test(
  'the control plane, the API server and the proxy default their metrics to different ports, ' +
    "each its service's own default",
  async (t) => {
    const controlPlane = eachContainer(await template(helm, 'control-plane', full['control-plane']!))[0]!;
    const platform = eachContainer(await template(helm, 'platform', full.platform!));
    const proxy = platform.find((c) => c.name === 'cluster-proxy')!;
    const api = platform.find((c) => c.name === 'api-server')!;
    t.equal(controlPlane.env.METRICS_PORT, '9091', 'the control plane on 9091');
    t.equal(proxy.env.METRICS_PORT, '9090', 'the proxy on 9090');
    t.equal(api.env.METRICS_PORT, '9092', 'the API server on 9092');
    const serviceDefault = (name: string, env: Env): number =>
      (loaders[name]!({ ...env, METRICS_PORT: undefined }) as { metricsPort: number }).metricsPort;
    t.equal(
      serviceDefault('control-plane', controlPlane.env),
      9091,
      "the control plane service defaults to the chart's port",
    );
    t.equal(serviceDefault('cluster-proxy', proxy.env), 9090, "the proxy service defaults to the chart's port");
    t.equal(serviceDefault('api-server', api.env), 9092, "the API server defaults to the chart's port");
  },
);

t.test('each chart refuses an unsafe installation with a message saying what to change', async (t) => {
  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ['platform', without(full.platform!, { cliAccess: { pinned: 'yes' } }), /cliAccess\.pinned must be/],
    ['control-plane', without(full['control-plane']!, { auth: { modes: ['none'] } }), /development only/],
    [
      'control-plane',
      without(full['control-plane']!, { extraEnv: [{ name: 'LOG_LEVEL', value: 'debug' }] }),
      /extraEnv: LOG_LEVEL is already set by the chart/,
    ],
    [
      'platform',
      without(full.platform!, {
        apiServer: {
          ...platformApi,
          extraEnv: [
            { name: 'NODE_OPTIONS', value: '-' },
            { name: 'NODE_OPTIONS', value: '+' },
          ],
        },
      }),
      /extraEnv: NODE_OPTIONS is already set twice/,
    ],
    [
      'platform',
      without(full.platform!, {
        clusterProxy: { ...platformProxy, extraEnv: [{ name: 'DATABASE_URL', value: 'postgres://in-plain-sight' }] },
      }),
      /extraEnv: DATABASE_URL is already set by the chart/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, { metrics: { port: 8080 } }),
      /metrics\.port: 8080 is the API port/,
    ],
    [
      'platform',
      without(full.platform!, { clusterProxy: { ...platformProxy, metrics: { port: 8444 } } }),
      /8443 and 8444 are the kubectl and tunnel ports/,
    ],
    [
      'platform',
      without(full.platform!, { apiServer: { ...platformApi, metrics: { port: 8081 } } }),
      /apiServer\.metrics\.port: 8081 is the API port/,
    ],
    [
      'tunnel-agent',
      without(full['tunnel-agent']!, { proxyTunnelUrl: 'http://proxy:8444' }),
      /proxyCa applies only to an https/,
    ],
  ];
  for (const [chart, values, message] of refusals) {
    const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(result.code, 0, `${chart} refuses: ${message.source}`);
    t.match(result.stderr, message);
  }
});

t.test("each chart's values schema names a misspelt or mistyped value before anything renders", async (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['control-plane', { ...full['control-plane'], replicas: 3 }, /additional properties 'replicas' not allowed/],
    [
      'control-plane',
      { ...full['control-plane'], replicaCount: 'two' },
      /at '\/replicaCount': got string, want integer/,
    ],
    [
      'control-plane',
      { ...full['control-plane'], auth: { ...(full['control-plane']!.auth as object), modes: ['apikey', 'ldap'] } },
      /at '\/auth\/modes\/1'/,
    ],
    ['platform', { ...full.platform, flagsCacheTtl: 'ten seconds' }, /at '\/flagsCacheTtl'/],
    ['platform', { ...full.platform, cliAccess: { staleMode: 'lenient' } }, /at '\/cliAccess\/staleMode'/],
    [
      'platform',
      {
        ...full.platform,
        clusterProxy: { ...(full.platform!.clusterProxy as object), publicUrl: 'http://kubectl.example.com' },
      },
      /at '\/clusterProxy\/publicUrl'/,
    ],
    ['tunnel-agent', { ...full['tunnel-agent'], connectTimeout: 'soon' }, /at '\/connectTimeout'/],
    [
      'tunnel-agent',
      { ...full['tunnel-agent'], proxyTunelUrl: 'https://typo:8444' },
      /additional properties 'proxyTunelUrl' not allowed/,
    ],
    // Kubernetes takes only strings in env[].value: a bare 2 or true would render, then fail to apply.
    [
      'platform',
      { ...full.platform, apiServer: { ...platformApi, extraEnv: [{ name: 'UV_THREADPOOL_SIZE', value: 8 }] } },
      /at '\/apiServer\/extraEnv\/0\/value': got number, want string/,
    ],
    [
      'platform',
      { ...full.platform, clusterProxy: { ...platformProxy, extraEnv: [{ name: 'NODE_NO_WARNINGS', value: true }] } },
      /at '\/clusterProxy\/extraEnv\/0\/value': got boolean, want string/,
    ],
    [
      'control-plane',
      { ...full['control-plane'], extraEnv: [{ name: 'UV_THREADPOOL_SIZE', value: 8 }] },
      /at '\/extraEnv\/0\/value': got number, want string/,
    ],
    [
      'tunnel-agent',
      {
        ...full['tunnel-agent'],
        extraEnv: [{ name: 'NODE_OPTIONS', valuefrom: { secretKeyRef: { name: 'x', key: 'y' } } }],
      },
      /additional properties 'valuefrom' not allowed/,
    ],
    ['platform', { ...full.platform, fullnameOverride: 'GSP_Platform' }, /at '\/fullnameOverride'/],
  ];
  for (const [chart, values, message] of cases) {
    const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(result.code, 0, `${chart} refuses ${message.source}`);
    t.match(result.stderr, message);
    const lint = await helm.run(['lint', chartDir(chart), ...valuesArgs(values)]);
    t.not(lint.code, 0, `${chart}: helm lint refuses it too`);
  }
});

t.test(
  'the longest release name Helm allows still gives DNS-label names, and extra variables that repeat nothing pass',
  async (t) => {
    const release = 'a'.repeat(53);
    for (const chart of Object.keys(full)) {
      const values = {
        ...full[chart],
        ...(chart === 'platform'
          ? { apiServer: { ...platformApi, extraEnv: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=200' }] } }
          : {}),
      };
      const result = await helm.run(['template', release, chartDir(chart), ...valuesArgs(values)]);
      t.equal(result.code, 0, result.stderr);
      const docs = parseAllDocuments(result.stdout)
        .map((doc) => doc.toJSON() as Manifest | null)
        .filter((doc): doc is Manifest => doc !== null);
      const tooLong = docs.filter(
        (d) =>
          ['Service', 'Deployment', 'ServiceAccount', 'ConfigMap', 'PodDisruptionBudget'].includes(d.kind) &&
          !/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(d.metadata.name),
      );
      t.same(
        tooLong.map((d) => `${d.kind}/${d.metadata.name}`),
        [],
        `${chart}: every Service, Deployment and account name is a DNS label of 63 characters or fewer`,
      );
    }
  },
);

t.test('numbers given in a values file reach the service as the integers it reads, not 1e+06', async (t) => {
  const docs = await template(helm, 'control-plane', {
    ...full['control-plane'],
    rateLimit: { max: 1_000_000, window: 60, authFailureLimit: 20 },
  });
  const { env } = eachContainer(docs)[0]!;
  t.equal(env.RATE_LIMIT_MAX, '1000000');
  t.equal(env.RATE_LIMIT_WINDOW, '60', 'a bare number of seconds is a duration');
  t.doesNotThrow(() => load('control-plane', env));
});

t.test(
  'the same chart installs in two namespaces: cluster-wide objects carry the namespace in their names',
  async (t) => {
    for (const chart of ['control-plane', 'tunnel-agent']) {
      const names = async (namespace: string): Promise<string[]> =>
        (await template(helm, chart, full[chart]!, namespace))
          .filter((d) => d.kind.startsWith('Cluster'))
          .map((d) => d.metadata.name);
      const [staging, production] = [await names('staging'), await names('production')];
      t.ok(staging.length > 0, `${chart} has cluster-scoped objects`);
      t.same(
        staging.filter((name) => production.includes(name)),
        [],
        `${chart}: no cluster-scoped name is shared between namespaces`,
      );
    }
  },
);

t.test('tunnel-agent: the 10 s backoff cap, the sync interval and a grace period that covers the drain', async (t) => {
  const docs = await template(helm, 'tunnel-agent', full['tunnel-agent']!);
  const agent = eachContainer(docs).find((c) => c.name === 'tunnel-agent')!;
  t.equal(agent.env.AGENT_BACKOFF_MAX, '10s', "Konnectivity's cap: an agent is never more than 10 s from a retry");
  t.equal(agent.env.AGENT_SYNC_INTERVAL, '1s');
  t.equal(agent.env.AGENT_DRAIN_GRACE, '10s');
  const config = loaders['tunnel-agent']!(agent.env) as { drainGraceMs: number; syncIntervalMs: number };
  t.match(config, { drainGraceMs: 10_000, syncIntervalMs: 1000 }, "the agent's own loader reads them");
  t.equal(
    podSpec(deployments(docs)[0]!).terminationGracePeriodSeconds,
    20,
    'the drain, the 5 s the process allows beyond it, and a margin',
  );

  const longer = await template(helm, 'tunnel-agent', { ...full['tunnel-agent']!, drainGraceSeconds: 60 });
  t.equal(podSpec(deployments(longer)[0]!).terminationGracePeriodSeconds, 70);
});

/** A StatefulSet's pod spec with its claim templates as volumes, as the kubelet would mount them. */
function withClaims(workload: Manifest): ReturnType<typeof podSpec> {
  const spec = podSpec(workload);
  const claims = (workload as unknown as { spec: { volumeClaimTemplates?: { metadata: { name: string } }[] } }).spec
    .volumeClaimTemplates;
  return { ...spec, volumes: [...(spec.volumes ?? []), ...(claims ?? []).map((c) => ({ name: c.metadata.name }))] };
}

const auditSecrets = [secrets['gsp-audit-webhook']!.secret!, secrets['gsp-audit-webhook']!.token!];
const controlPlaneAudit = full['control-plane']!.audit as Record<string, Record<string, unknown>>;
const spoolBytes = 1024 * 1024 * 1024;

t.test(
  'control-plane: with a sink, the spool is a volume at /var/lib/gsp/audit-spool ' +
    'and the credentials are files from Secrets',
  async (t) => {
    const docs = await template(helm, 'control-plane', full['control-plane']!);
    const [{ spec, container, env }] = eachContainer(docs) as [ReturnType<typeof eachContainer>[number]];
    const variables = new Map((container.env ?? []).map((v) => [v.name, v]));
    t.equal(variables.get('AUDIT_SPOOL_DIR')?.value, '/var/lib/gsp/audit-spool');
    const mount = container.volumeMounts?.find((m) => m.mountPath === '/var/lib/gsp/audit-spool');
    const volume = spec.volumes?.find((v) => v.name === mount?.name) as { emptyDir?: { sizeLimit?: string } };
    t.same(
      volume?.emptyDir,
      { sizeLimit: String(spoolBytes + spoolBytes / 4 + 32 * 1024 * 1024) },
      'an emptyDir by default, sized a quarter and 32 MiB above the bound ' +
        'so the kubelet never evicts a spool within it',
    );
    t.same(spec.securityContext?.fsGroup, 1000, 'writable by the process (fsGroup) on a read-only root');
    t.equal(
      (deployments(docs)[0]! as unknown as { kind: string }).kind,
      'Deployment',
      'still a Deployment without persistence',
    );
    t.equal(spec.terminationGracePeriodSeconds, undefined, 'the grace period is left as it was');
    t.same(
      variables.get('REPLICA_ID')?.valueFrom,
      { fieldRef: { fieldPath: 'metadata.name' } },
      'each replica is named by its pod',
    );

    for (const name of ['AUDIT_WEBHOOK_SECRET', 'AUDIT_WEBHOOK_TOKEN'])
      t.notOk(variables.has(name), `${name} is never a variable, only ${name}_FILE`);
    t.same(
      [...variables.values()].filter((v) => auditSecrets.some((s) => v.value?.includes(s))),
      [],
      'no audit credential appears in the rendered environment',
    );
    t.notOk(variables.has('AUDIT_OTLP_HEADERS'), 'OTLP headers from a Secret are a file too, never a variable');
    t.equal(variables.get('AUDIT_OTLP_HEADERS_FILE')?.value, '/etc/gsp/audit-otlp/headers');

    const config = loaders['control-plane']!(env) as {
      auditExport: AuditExportConfig;
      auditSpool: { dir: string; maxBytes: number; full: string };
      replicaId: string;
    };
    t.match(
      config.auditExport.webhook,
      {
        url: 'https://siem.example.com/audit',
        secret: secrets['gsp-audit-webhook']!.secret,
        token: secrets['gsp-audit-webhook']!.token,
        ca: /-----BEGIN CERTIFICATE-----/,
      },
      'the control plane signs with the mounted key, sends the mounted token and trusts the mounted CA',
    );
    t.same(config.auditExport.otlp, {
      url: 'http://otel-collector.observability:4318',
      headers: { authorization: 'Bearer otlp-token-6f5e4d3c', 'x-scope-orgid': 'gsp' },
    });
    t.match(config.auditExport, { timeoutMs: 10_000, batchMax: 400, backoff: { maxMs: 30_000 } });
    t.match(config.auditSpool, { maxBytes: spoolBytes, full: 'block' });
    t.equal(config.auditSpool.dir, env.AUDIT_SPOOL_DIR, 'the spool is where the volume is mounted');
    t.equal(config.replicaId, podName(container));
  },
);

t.test('default values render no AUDIT_* variable, no spool volume and no fsGroup, in either chart', async (t) => {
  const { audit: _cp, ...controlPlane } = full['control-plane']!;
  const { audit: _api, ...api } = platformApi;
  const plain = [
    ...eachContainer(await template(helm, 'control-plane', controlPlane)),
    ...eachContainer(await template(helm, 'platform', without(full.platform!, { apiServer: api }))),
  ];
  t.same(
    plain.map((c) => c.name),
    ['control-plane', 'api-server', 'cluster-proxy'],
  );
  for (const { name, env, spec, container } of plain) {
    t.same(
      Object.keys(env).filter((key) => key.startsWith('AUDIT_')),
      [],
      `${name}: no AUDIT_* variable`,
    );
    t.same(
      (container.volumeMounts ?? []).filter((m) => m.name.startsWith('audit')),
      [],
      `${name}: no audit volume`,
    );
    if (name === 'control-plane') t.equal(spec.securityContext?.fsGroup, undefined);
  }
  const config = loaders['control-plane']!(plain[0]!.env) as { auditExport: AuditExportConfig };
  t.same([config.auditExport.webhook, config.auditExport.otlp], [undefined, undefined], 'stdout only');
});

t.test('platform: the API server exports from PostgreSQL with the same audit values, and needs no spool', async (t) => {
  const docs = await template(
    helm,
    'platform',
    without(full.platform!, {
      apiServer: { ...platformApi, audit: { ...audit, export: { batchMax: 1000, pollInterval: '250ms' } } },
    }),
  );
  const containers = eachContainer(docs);
  const api = containers.find((c) => c.name === 'api-server')!;
  const config = loaders['api-server']!(api.env) as {
    auditExport: AuditExportConfig;
    auditExportPollIntervalMs: number;
  };
  t.match(config.auditExport.webhook, {
    url: 'https://siem.example.com/audit',
    secret: secrets['gsp-audit-webhook']!.secret,
    token: secrets['gsp-audit-webhook']!.token,
  });
  t.equal(config.auditExport.otlp?.url, 'http://otel-collector.observability:4318');
  t.equal(config.auditExport.batchMax, 1000);
  t.equal(config.auditExportPollIntervalMs, 250);
  t.same(
    Object.keys(api.env).filter((key) => key.startsWith('AUDIT_SPOOL')),
    [],
    'no spool: the rows are the queue',
  );
  t.notOk(
    (api.container.env ?? []).some((v) => ['AUDIT_WEBHOOK_SECRET', 'AUDIT_WEBHOOK_TOKEN'].includes(v.name)),
    'credentials only as files',
  );
  const proxy = containers.find((c) => c.name === 'cluster-proxy')!;
  t.same(
    Object.keys(proxy.env).filter((key) => key.startsWith('AUDIT_')),
    [],
    'the proxy exports nothing',
  );
});

t.test(
  'control-plane: with persistence, a StatefulSet gives each replica its own claim and a stable name',
  async (t) => {
    const values = {
      ...full['control-plane'],
      audit: {
        ...controlPlaneAudit,
        spool: { maxBytes: spoolBytes, full: 'drop', persistence: { enabled: true, storageClass: 'fast' } },
      },
    };
    const docs = await template(helm, 'control-plane', values);
    t.same(deployments(docs), [], 'no Deployment');
    const set = docs.find((d) => d.kind === 'StatefulSet')! as Manifest & {
      spec: {
        serviceName: string;
        podManagementPolicy: string;
        volumeClaimTemplates: {
          metadata: { name: string };
          spec: { accessModes: string[]; storageClassName: string; resources: { requests: { storage: string } } };
        }[];
      };
    };
    t.equal(set.metadata.name, 'gsp-control-plane');
    t.ok(
      docs.some((d) => d.kind === 'Service' && d.metadata.name === set.spec.serviceName),
      'its serviceName is a Service the chart renders',
    );
    t.equal(set.spec.podManagementPolicy, 'Parallel');
    t.same(
      set.spec.volumeClaimTemplates.map((c) => [c.metadata.name, c.spec.accessModes, c.spec.storageClassName]),
      [['audit-spool', ['ReadWriteOnce'], 'fast']],
    );
    t.equal(
      set.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage,
      String(spoolBytes + spoolBytes / 4 + 32 * 1024 * 1024),
      "the claim's default size is the emptyDir's",
    );
    const spec = withClaims(set);
    const container = spec.containers[0]!;
    t.same(
      spec.volumes?.filter((v) => v.name === 'audit-spool'),
      [{ name: 'audit-spool' }],
      'the spool is the claim, not an emptyDir',
    );
    t.same(spec.securityContext?.fsGroup, 1000, "the claim's files belong to the process's group");
    t.equal(spec.terminationGracePeriodSeconds, undefined);
    const env = containerEnv(docs, spec, container, secrets, mkdtempSync(join(tmpdir(), 'gsp-chart-')));
    const config = loaders['control-plane']!(env) as { auditSpool: { full: string } };
    t.equal(config.auditSpool.full, 'drop');
    t.same(
      docs.filter((d) => d.kind === 'PodDisruptionBudget').map((d) => d.metadata.name),
      ['gsp-control-plane'],
      'the budget covers the StatefulSet',
    );

    const sized = await template(helm, 'control-plane', {
      ...values,
      audit: { ...controlPlaneAudit, spool: { persistence: { enabled: true, size: '5Gi' } } },
    });
    const claim = (sized.find((d) => d.kind === 'StatefulSet') as typeof set).spec.volumeClaimTemplates[0]!;
    t.equal(claim.spec.resources.requests.storage, '5Gi');
    t.equal(claim.spec.storageClassName, undefined, "the cluster's default storage class");

    const limited = await template(helm, 'control-plane', {
      ...values,
      audit: { ...controlPlaneAudit, spool: { volume: { sizeLimit: '2Gi' }, persistence: { enabled: true } } },
    });
    const limitedClaim = (limited.find((d) => d.kind === 'StatefulSet') as typeof set).spec.volumeClaimTemplates[0]!;
    t.equal(limitedClaim.spec.resources.requests.storage, '2Gi', 'or the size given for the volume');
    const ephemeral = await template(helm, 'control-plane', {
      ...values,
      audit: { ...controlPlaneAudit, spool: { volume: { sizeLimit: '2Gi' } } },
    });
    t.same(
      podSpec(deployments(ephemeral)[0]!).volumes?.find((v) => v.name === 'audit-spool')?.emptyDir,
      { sizeLimit: '2Gi' },
      'which is also the emptyDir limit',
    );
  },
);

t.test('an audit configuration that would be ignored or leak a credential is refused, naming the value', async (t) => {
  const controlPlane = full['control-plane']!;
  const refusals: [string, Record<string, unknown>, RegExp][] = [
    [
      'control-plane',
      without(controlPlane, { audit: { spool: { persistence: { enabled: true } } } }),
      /audit\.spool\.persistence\.enabled: the spool exists only with a sink/,
    ],
    [
      'control-plane',
      without(controlPlane, { audit: { webhook: { existingSecret: 'gsp-audit-webhook' } } }),
      /audit\.webhook\.existingSecret or ca\.existingSecret is set but audit\.webhook\.url is not/,
    ],
    [
      'control-plane',
      without(controlPlane, { audit: { otlp: { headers: 'x-scope-orgid=gsp' } } }),
      /audit\.otlp\.headers or existingSecret is set but audit\.otlp\.url is not/,
    ],
    [
      'platform',
      without(full.platform!, { apiServer: { ...platformApi, audit: { webhook: { existingSecret: 'x' } } } }),
      /apiServer\.audit\.webhook\.existingSecret or ca\.existingSecret is set but apiServer\.audit\.webhook\.url/,
    ],
    [
      'control-plane',
      without(controlPlane, { extraEnv: [{ name: 'AUDIT_WEBHOOK_SECRET', value: 'in-plain-sight' }] }),
      /extraEnv: AUDIT_WEBHOOK_SECRET may not be set here; set audit\.webhook\.existingSecret and secretKey/,
    ],
    [
      'control-plane',
      without(controlPlane, { extraEnv: [{ name: 'AUDIT_SPOOL_DIR', value: '/tmp/spool' }] }),
      /extraEnv: AUDIT_SPOOL_DIR may not be set here/,
    ],
    [
      'control-plane',
      without(Object.fromEntries(Object.entries(controlPlane).filter(([key]) => key !== 'audit')), {
        extraEnv: [{ name: 'AUDIT_WEBHOOK_URL', value: 'https://siem.example.com/audit' }],
      }),
      /extraEnv: AUDIT_WEBHOOK_URL may not be set here; set audit\.webhook\.url \(a sink needs the spool/,
    ],
    [
      'control-plane',
      without(controlPlane, { extraEnv: [{ name: 'AUDIT_SPOOL_FULL', value: 'drop' }] }),
      /extraEnv: AUDIT_SPOOL_FULL is already set by the chart/,
    ],
    [
      'platform',
      without(full.platform!, {
        apiServer: { ...platformApi, extraEnv: [{ name: 'AUDIT_WEBHOOK_TOKEN', value: 'in-plain-sight' }] },
      }),
      /extraEnv: AUDIT_WEBHOOK_TOKEN may not be set here; set apiServer\.audit\.webhook\.existingSecret and tokenKey/,
    ],
  ];
  for (const [chart, values, message] of refusals) {
    const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(result.code, 0, `${chart} refuses: ${message.source}`);
    t.match(result.stderr, message);
  }
});

t.test('the values schemas check the audit values: URLs, the full-spool policy, sizes and durations', async (t) => {
  const withSpool = (spool: Record<string, unknown>): Record<string, unknown> =>
    without(full['control-plane']!, { audit: { ...controlPlaneAudit, spool } });
  const withApiAudit = (patch: Record<string, unknown>): Record<string, unknown> =>
    without(full.platform!, { apiServer: { ...platformApi, audit: { ...audit, ...patch } } });
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['control-plane', withSpool({ full: 'fail-open' }), /at '\/audit\/spool\/full'/],
    ['control-plane', withSpool({ maxBytes: 1000 }), /at '\/audit\/spool\/maxBytes': minimum/],
    ['control-plane', withSpool({ maxBytes: '1Gi' }), /at '\/audit\/spool\/maxBytes': got string, want integer/],
    ['control-plane', withSpool({ persistence: { enabled: 'yes' } }), /at '\/audit\/spool\/persistence\/enabled'/],
    ['control-plane', withSpool({ volume: { sizeLimit: '2 GB' } }), /at '\/audit\/spool\/volume\/sizeLimit'/],
    ['control-plane', withSpool({ presistence: { enabled: true } }), /additional properties 'presistence' not allowed/],
    [
      'control-plane',
      without(full['control-plane']!, { audit: { webhook: { url: 'siem.example.com/audit' } } }),
      /at '\/audit\/webhook\/url'/,
    ],
    [
      'control-plane',
      without(full['control-plane']!, { audit: { ...controlPlaneAudit, export: { batchMax: 0 } } }),
      /at '\/audit\/export\/batchMax': minimum/,
    ],
    ['platform', withApiAudit({ otlp: { url: 'otel:4318' } }), /at '\/apiServer\/audit\/otlp\/url'/],
    ['platform', withApiAudit({ export: { pollInterval: 'often' } }), /at '\/apiServer\/audit\/export\/pollInterval'/],
    ['platform', withApiAudit({ spool: { full: 'block' } }), /additional properties 'spool' not allowed/],
  ];
  for (const [chart, values, message] of cases) {
    const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(result.code, 0, `${chart} refuses ${message.source}`);
    t.match(result.stderr, message);
  }
  const fine = await template(helm, 'control-plane', withSpool({ full: 'drop', maxBytes: 65_536 }));
  t.equal(eachContainer(fine)[0]!.env.AUDIT_SPOOL_MAX_BYTES, '65536', 'the smallest bound the service takes');
});
