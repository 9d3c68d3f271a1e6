/**
 * How the platform is reached from outside: an Ingress or a Gateway API HTTPRoute to the API server and to the
 * control plane, the public URLs derived from their hosts, and the cluster proxy's LoadBalancer Service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { chartDir, containerEnv, deployments, helmIn, loaders, podSpec, template, valuesArgs } from './render.js';
import type { Env, Manifest } from './render.js';
import { full, merged, panelSignIn, secrets } from './values.js';

const helm = helmIn();
t.teardown(() => helm.close());
const dir = mkdtempSync(join(tmpdir(), 'gsp-exposure-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Backend {
  service: { name: string; port: { name?: string; number?: number } };
}
interface Ingress {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    ingressClassName?: string;
    rules: { host?: string; http: { paths: { path: string; pathType: string; backend: Backend }[] } }[];
    tls?: { hosts: string[]; secretName: string }[];
  };
}
interface HttpRoute {
  spec: {
    parentRefs: { name: string; namespace?: string; sectionName?: string }[];
    hostnames?: string[];
    rules: { matches: { path: { type: string; value: string } }[]; backendRefs: { name: string; port: number }[] }[];
  };
}
interface Service {
  metadata: { name: string };
  spec: {
    type: string;
    ports: { name: string; port: number }[];
    loadBalancerSourceRanges?: string[];
    externalTrafficPolicy?: string;
    loadBalancerClass?: string;
  };
}

const ofKind = <T>(docs: Manifest[], kind: string): T[] => docs.filter((d) => d.kind === kind) as unknown as T[];

/** A container's environment as the kubelet would give it. */
function envOf(docs: Manifest[], name: string): Env {
  const deployment = deployments(docs).find((d) => podSpec(d).containers.some((c) => c.name === name))!;
  const spec = podSpec(deployment);
  const container = spec.containers.find((c) => c.name === name)!;
  return containerEnv(docs, spec, container, secrets, mkdtempSync(join(dir, `${name}-`)));
}

/** Each Ingress path and HTTPRoute backend names a Service of the render, by a port it has. */
function checkBackends(t: Test, docs: Manifest[]): void {
  const services = ofKind<Service>(docs, 'Service');
  const portOf = (name: string): Service['spec']['ports'] =>
    services.find((s) => s.metadata.name === name)?.spec.ports ?? [];
  for (const ingress of ofKind<Ingress>(docs, 'Ingress'))
    for (const rule of ingress.spec.rules)
      for (const { backend } of rule.http.paths) {
        const ports = portOf(backend.service.name);
        t.ok(
          ports.some((p) => p.name === backend.service.port.name || p.port === backend.service.port.number),
          `Ingress ${ingress.metadata.name}: Service ${backend.service.name} has ` +
            `port ${JSON.stringify(backend.service.port)}`,
        );
      }
  for (const route of ofKind<HttpRoute>(docs, 'HTTPRoute'))
    for (const rule of route.spec.rules)
      for (const ref of rule.backendRefs)
        t.ok(
          portOf(ref.name).some((p) => p.port === ref.port),
          `HTTPRoute: Service ${ref.name} has port ${ref.port}`,
        );
}

const gateway = { name: 'public', namespace: 'gateway-system', sectionName: 'https' };

/** One way of exposing a Service, and what it should render. */
interface Case {
  name: string;
  ingress?: Record<string, unknown>;
  httpRoute?: Record<string, unknown>;
  publicUrl?: string;
  kinds: string[];
  host?: string;
  tls?: { hosts: string[]; secretName: string }[];
  url: string;
}

function cases(host: string, path: string): Case[] {
  const origin = (scheme: string, h = host): string => `${scheme}://${h}${path}`;
  return [
    { name: 'an Ingress without TLS', ingress: { hostname: host }, kinds: ['Ingress'], host, url: origin('http') },
    {
      name: 'an Ingress with TLS from cert-manager',
      ingress: { hostname: host, tls: true, annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' } },
      kinds: ['Ingress'],
      host,
      tls: [{ hosts: [host], secretName: `${host}-tls` }],
      url: origin('https'),
    },
    {
      name: 'an Ingress with TLS in a Secret of its own',
      ingress: { hostname: host, tls: true, secretName: 'public-cert' },
      kinds: ['Ingress'],
      host,
      tls: [{ hosts: [host], secretName: 'public-cert' }],
      url: origin('https'),
    },
    {
      name: 'an Ingress whose extraTls covers the host',
      ingress: { hostname: host, extraTls: [{ hosts: [host], secretName: 'wildcard-tls' }] },
      kinds: ['Ingress'],
      host,
      tls: [{ hosts: [host], secretName: 'wildcard-tls' }],
      url: origin('https'),
    },
    {
      name: 'an HTTPRoute',
      httpRoute: { parentRefs: [gateway], hostnames: [`gw-${host}`] },
      kinds: ['HTTPRoute'],
      url: origin('https', `gw-${host}`),
    },
    {
      name: 'an Ingress and an HTTPRoute at once (a move to a Gateway)',
      ingress: { hostname: host, tls: true },
      httpRoute: { parentRefs: [gateway], hostnames: [host] },
      kinds: ['Ingress', 'HTTPRoute'],
      host,
      tls: [{ hosts: [host], secretName: `${host}-tls` }],
      url: origin('https'),
    },
    {
      name: 'an Ingress and a public URL given, which wins',
      ingress: { hostname: host, tls: true },
      publicUrl: `https://elsewhere.example.com${path}`,
      kinds: ['Ingress'],
      host,
      tls: [{ hosts: [host], secretName: `${host}-tls` }],
      url: `https://elsewhere.example.com${path}`,
    },
  ];
}

interface Exposed {
  chart: string;
  service: string;
  container: string;
  variable: string;
  host: string;
  path: string;
  /** The chart's values with this exposure; `url` is the public URL given, if any. */
  values: (exposure: { ingress?: object; httpRoute?: object; publicUrl?: string }) => Record<string, unknown>;
  /** The public URL as the service's own loader reads it. */
  loaded: (env: Env) => string | undefined;
}

const exposed: Exposed[] = [
  {
    chart: 'platform',
    service: 'gsp-platform-api-server',
    container: 'api-server',
    variable: 'CONSOLE_PUBLIC_URL',
    host: 'platform.example.com',
    path: '/console/',
    values: ({ ingress, httpRoute, publicUrl }) =>
      merged(full.platform!, {
        apiServer: {
          console: { publicUrl: publicUrl ?? '' },
          ...(ingress ? { ingress: { enabled: true, ...ingress } } : {}),
          ...(httpRoute ? { httpRoute: { enabled: true, ...httpRoute } } : {}),
        },
      }),
    loaded: (env) => (loaders['api-server']!(env) as { consoleAuth?: { publicUrl: string } }).consoleAuth?.publicUrl,
  },
  {
    chart: 'control-plane',
    service: 'gsp-control-plane',
    container: 'control-plane',
    variable: 'PANEL_PUBLIC_URL',
    host: 'cp.example.com',
    path: '/panel/',
    values: ({ ingress, httpRoute, publicUrl }) =>
      merged(full['control-plane']!, {
        panel: { publicUrl: publicUrl ?? '', ...panelSignIn },
        ...(ingress ? { ingress: { enabled: true, ...ingress } } : {}),
        ...(httpRoute ? { httpRoute: { enabled: true, ...httpRoute } } : {}),
      }),
    loaded: (env) => (loaders['control-plane']!(env) as { panel: { publicUrl?: string } }).panel.publicUrl,
  },
];

for (const target of exposed) {
  t.test(`${target.chart}: nothing is exposed by default`, async (t) => {
    const docs = await template(helm, target.chart, full[target.chart]!);
    t.same(
      docs.filter((d) => ['Ingress', 'HTTPRoute'].includes(d.kind)),
      [],
    );
  });

  for (const c of cases(target.host, target.path)) {
    t.test(`${target.chart}: ${c.name} reaches ${target.service} and gives ${target.variable}`, async (t) => {
      const values = target.values({
        ...(c.ingress ? { ingress: c.ingress } : {}),
        ...(c.httpRoute ? { httpRoute: c.httpRoute } : {}),
        ...(c.publicUrl ? { publicUrl: c.publicUrl } : {}),
      });
      const docs = await template(helm, target.chart, values);
      t.same(
        docs.filter((d) => ['Ingress', 'HTTPRoute'].includes(d.kind)).map((d) => d.kind),
        c.kinds,
        `renders ${c.kinds.join(' and ')}`,
      );
      for (const ingress of ofKind<Ingress>(docs, 'Ingress')) {
        t.same(
          ingress.spec.rules.map((r) => [
            r.host,
            r.http.paths.map((p) => [p.path, p.pathType, p.backend.service.name]),
          ]),
          [[c.host, [['/', 'Prefix', target.service]]]],
          'one rule: the host, every path, to the Service',
        );
        t.same(ingress.spec.tls, c.tls, c.tls ? 'TLS for the host, with its Secret' : 'no TLS');
      }
      for (const route of ofKind<HttpRoute>(docs, 'HTTPRoute')) {
        t.same(route.spec.parentRefs, [gateway], 'attached to the Gateway named');
        t.same(route.spec.hostnames, c.httpRoute!.hostnames);
        t.same(route.spec.rules[0]!.matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
      }
      checkBackends(t, docs);
      const env = envOf(docs, target.container);
      t.equal(env[target.variable], c.url, `${target.variable} is ${c.url}`);
      t.equal(target.loaded(env), c.url, 'which the service takes as its public URL');
    });
  }
}

t.test('platform: the console sign-in with no public URL to give or derive is refused', async (t) => {
  const values = merged(full.platform!, { apiServer: { console: { publicUrl: '' } } });
  const result = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
  t.not(result.code, 0);
  t.match(result.stderr, /publicUrl may instead come from apiServer\.ingress\.hostname or apiServer\.httpRoute/);
  const { console: _console, ...api } = full.platform!.apiServer as Record<string, unknown>;
  const exposedOnly = await template(
    helm,
    'platform',
    merged({ ...full.platform!, apiServer: api }, { apiServer: { ingress: { enabled: true, hostname: 'p.example' } } }),
  );
  t.equal(envOf(exposedOnly, 'api-server').CONSOLE_PUBLIC_URL, undefined, 'an Ingress alone turns no sign-in on');
});

t.test(
  'control-plane: the panel without a public URL checks Origin against Host, and its sign-in needs one',
  async (t) => {
    const values = full['control-plane']!;
    t.equal(envOf(await template(helm, 'control-plane', values), 'control-plane').PANEL_PUBLIC_URL, undefined);
    const refusals: [Record<string, unknown>, RegExp][] = [
      [
        merged(values, { panel: panelSignIn }),
        /panel\.oidc needs panel\.publicUrl, or ingress\.hostname or httpRoute\.hostnames/,
      ],
      [merged(values, { panel: { oidc: { clientId: 'gsp-panel' } } }), /panel\.oidc: set clientId and clientSecret/],
      [
        merged(values, {
          auth: { modes: ['apikey'] },
          panel: { publicUrl: 'https://cp.example.com/panel/', ...panelSignIn },
        }),
        /panel\.oidc needs the oidc mode in auth\.modes/,
      ],
      [merged(values, { panel: { publicUrl: 'https://cp.example.com/' } }), /at '\/panel\/publicUrl'/],
      [
        merged(values, { extraEnv: [{ name: 'PANEL_PUBLIC_URL', value: 'https://cp.example.com/panel/' }] }),
        /extraEnv: PANEL_PUBLIC_URL may not be set here; set panel\.publicUrl/,
      ],
    ];
    for (const [refused, message] of refusals) {
      const result = await helm.run(['template', 'gsp', chartDir('control-plane'), ...valuesArgs(refused)]);
      t.not(result.code, 0, `refuses: ${message.source}`);
      t.match(result.stderr, message);
    }
  },
);

t.test('an exposure that cannot work is refused, by the schema and by the template behind it', async (t) => {
  const api = (patch: Record<string, unknown>): Record<string, unknown> => merged(full.platform!, { apiServer: patch });
  const cases: [string, Record<string, unknown>, RegExp, RegExp][] = [
    [
      'platform',
      api({ ingress: { enabled: true, tls: true } }),
      /at '\/apiServer\/ingress\/hostname': minLength/,
      /apiServer\.ingress\.tls needs apiServer\.ingress\.hostname/,
    ],
    [
      'platform',
      api({ httpRoute: { enabled: true, hostnames: ['platform.example.com'] } }),
      /at '\/apiServer\/httpRoute\/parentRefs': minItems/,
      /apiServer\.httpRoute\.parentRefs: name the Gateway/,
    ],
    [
      'control-plane',
      merged(full['control-plane']!, { httpRoute: { enabled: true } }),
      /at '\/httpRoute\/parentRefs': minItems/,
      /httpRoute\.parentRefs: name the Gateway/,
    ],
    [
      'platform',
      merged(full.platform!, {
        clusterProxy: { service: { type: 'ClusterIP', loadBalancerSourceRanges: ['10.0.0.0/8'] } },
      }),
      /^$/,
      /loadBalancerSourceRanges and loadBalancerClass apply to type LoadBalancer, not ClusterIP/,
    ],
  ];
  for (const [chart, values, schema, template] of cases) {
    const checked = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(values)]);
    t.not(checked.code, 0, `${chart} refuses ${template.source}`);
    if (schema.source !== '^$') t.match(checked.stderr, schema);
    const unchecked = await helm.run([
      'template',
      'gsp',
      chartDir(chart),
      '--skip-schema-validation',
      ...valuesArgs(values),
    ]);
    t.not(unchecked.code, 0);
    t.match(unchecked.stderr, template);
  }
  for (const [path, values] of [
    ['/apiServer/ingress/pathType', api({ ingress: { pathType: 'Regex' } })],
    ['/apiServer/ingress/hostname', api({ ingress: { hostname: 'https://platform.example.com' } })],
    [
      '/clusterProxy/service/externalTrafficPolicy',
      merged(full.platform!, { clusterProxy: { service: { externalTrafficPolicy: 'local' } } }),
    ],
  ] as const) {
    const result = await helm.run(['template', 'gsp', chartDir('platform'), ...valuesArgs(values)]);
    t.match(result.stderr, `at '${path}'`, `the schema names ${path}`);
  }
});

t.test(
  "platform: the proxy's LoadBalancer takes source ranges, a traffic policy and a class; agents dial its host",
  async (t) => {
    const values = merged(full.platform!, {
      clusterProxy: {
        tunnelPublicUrl: '',
        service: {
          annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external' },
          loadBalancerSourceRanges: ['203.0.113.0/24'],
          externalTrafficPolicy: 'Local',
          loadBalancerClass: 'service.k8s.aws/nlb',
          tunnelPort: 9444,
        },
      },
    });
    const docs = await template(helm, 'platform', values);
    const service = ofKind<Service & { metadata: { annotations?: Record<string, string> } }>(docs, 'Service').find(
      (s) => s.metadata.name === 'gsp-platform-cluster-proxy',
    )!;
    t.match(service, {
      metadata: { annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external' } },
      spec: {
        type: 'LoadBalancer',
        loadBalancerSourceRanges: ['203.0.113.0/24'],
        externalTrafficPolicy: 'Local',
        loadBalancerClass: 'service.k8s.aws/nlb',
      },
    });
    t.same(
      service.spec.ports.map((p) => [p.name, p.port]),
      [
        ['kubectl', 443],
        ['tunnel', 9444],
      ],
    );
    t.equal(
      envOf(docs, 'api-server').PROXY_TUNNEL_PUBLIC_URL,
      'https://kubectl.example.com:9444',
      "agents dial publicUrl's host on the load balancer's tunnel port: the host is set once",
    );
    const plain = ofKind<Service>(await template(helm, 'platform', full.platform!), 'Service').find(
      (s) => s.metadata.name === 'gsp-platform-cluster-proxy',
    )!;
    t.notOk(
      'loadBalancerSourceRanges' in plain.spec || 'externalTrafficPolicy' in plain.spec,
      'none of them by default',
    );
  },
);
