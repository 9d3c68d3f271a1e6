/**
 * Every setting is a value: each variable a service's configuration loader reads (found in its source, so a branch
 * the rendered values never take counts too) is set by a value of its chart, or is listed in the chart's README
 * under "Variables without a value" with the reason. A new variable in a loader fails here until it is one or the
 * other.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FLAGS } from '@gsp/flags-client';
import { configVariables } from './config-vars.js';
import type { ConfigVariables } from './config-vars.js';
import { chartDir, containerEnv, deployments, helmIn, load, loaders, podSpec, template, valuesArgs } from './render.js';
import type { Env } from './render.js';
import { full, merged, panelSignIn, secrets } from './values.js';

const helm = helmIn();
t.teardown(() => helm.close());
const dir = mkdtempSync(join(tmpdir(), 'gsp-settings-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The kubelet sets these in every pod. */
const kubeletVars = new Set(['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']);

/** Each chart, its services, and value sets that between them take every branch that sets a variable. */
const charts: Record<string, { services: string[]; valueSets: Record<string, unknown>[] }> = {
  platform: {
    services: ['api-server', 'cluster-proxy'],
    valueSets: [
      full.platform!,
      // Development: the self-signed certificate, OTLP headers given as a value.
      merged(full.platform!, {
        clusterProxy: { tls: { existingSecret: '', embedCa: false, insecureSkipVerify: true } },
        apiServer: { audit: { otlp: { existingSecret: '', headers: 'x-scope-orgid=gsp' } } },
      }),
    ],
  },
  'control-plane': {
    services: ['control-plane'],
    valueSets: [
      full['control-plane']!,
      merged(full['control-plane']!, {
        panel: { publicUrl: 'https://cp.example.com/panel/', ...panelSignIn },
        audit: { otlp: { existingSecret: '', headers: 'x-scope-orgid=gsp' } },
      }),
    ],
  },
  'tunnel-agent': { services: ['tunnel-agent'], valueSets: [full['tunnel-agent']!] },
};

/** What a computed read stands for: the flag pins are read by their registry entry's `envVar`. */
const dynamicReads: Record<string, string[]> = {
  'packages/flags-client/src/evaluate.ts#readEnvPin': FLAGS.map((flag) => flag.envVar),
};

const scans = new Map<string, ConfigVariables>();
function scanned(service: string): ConfigVariables {
  let scan = scans.get(service);
  if (scan === undefined) scans.set(service, (scan = configVariables(service)));
  return scan;
}

/** The names a service's loader reads, computed reads resolved. */
function loaderNames(service: string): Set<string> {
  const scan = scanned(service);
  const names = new Set(scan.names);
  for (const read of scan.dynamic) for (const name of dynamicReads[`${read.file}#${read.fn}`] ?? []) names.add(name);
  return names;
}

/** The containers of a chart rendered with each of its value sets, by service: the names set and the environment. */
async function rendered(chart: string): Promise<Map<string, { names: Set<string>; envs: Env[] }>> {
  const byService = new Map<string, { names: Set<string>; envs: Env[] }>();
  for (const [i, values] of charts[chart]!.valueSets.entries()) {
    const docs = await template(helm, chart, values);
    for (const deployment of deployments(docs)) {
      const spec = podSpec(deployment);
      for (const container of spec.containers) {
        const entry = byService.get(container.name) ?? { names: new Set<string>(), envs: [] };
        byService.set(container.name, entry);
        for (const variable of container.env ?? []) entry.names.add(variable.name);
        entry.envs.push(containerEnv(docs, spec, container, secrets, join(dir, chart, String(i), container.name)));
      }
    }
  }
  return byService;
}

/** The variables the chart's README lists under "Variables without a value", with the row that gives the reason. */
function withoutValue(chart: string): Map<string, string> {
  const readme = readFileSync(join(chartDir(chart), 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Variables without a value\n');
  if (start < 0) throw new Error(`deploy/helm/${chart}/README.md has no "Variables without a value" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const rows = readme
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => /^\| `/.test(line));
  return new Map(
    rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => [m[1]!, row] as const)),
  );
}

t.test(
  'the scan of the loaders finds the variables counted by hand, helpers of other workspaces included',
  async (t) => {
    // Counted by reading each loader and the helpers it calls (2026-11-29); a new variable changes a count here too.
    const counts = Object.fromEntries(
      ['api-server', 'control-plane', 'cluster-proxy', 'tunnel-agent'].map((s) => [s, scanned(s).names.size]),
    );
    t.same(counts, { 'api-server': 61, 'control-plane': 64, 'cluster-proxy': 26, 'tunnel-agent': 27 });
    const spot: [string, string, string][] = [
      ['api-server', 'HTTP_KEEP_ALIVE_TIMEOUT', "service-kit's httpTimeouts(env)"],
      ['api-server', 'TRUST_PROXY', "trustProxyVar's default parameter"],
      ['api-server', 'AUDIT_EXPORT_BACKOFF_BASE', "audit-export's auditExportConfig(env)"],
      ['api-server', 'CONSOLE_OIDC_CLIENT_SECRET_FILE', "readSecret's `${name}_FILE`"],
      ['control-plane', 'AUTH_CLOCK_TOLERANCE', "service-kit's clockToleranceVar(env)"],
      ['control-plane', 'REDIS_KEY_PREFIX', 'env.REDIS_KEY_PREFIX'],
      ['cluster-proxy', 'TLS_KEY_FILE', "certificatePair's second name"],
      ['tunnel-agent', 'AGENT_TOKEN_FILE', "readSecret's `${name}_FILE`"],
    ];
    for (const [service, name, how] of spot)
      t.ok(scanned(service).names.has(name), `${service}: ${name}, through ${how}`);
    for (const service of ['api-server', 'cluster-proxy'])
      t.same(
        scanned(service).dynamic.map((read) => `${read.file}#${read.fn}: ${read.expression}`),
        ['packages/flags-client/src/evaluate.ts#readEnvPin: env[flag.envVar]'],
        `${service}: the one computed read is the flag pins', which the test resolves from the registry`,
      );
  },
);

for (const chart of Object.keys(charts)) {
  t.test(`${chart}: every variable its services' loaders read is a value, or listed in its README`, async (t) => {
    const byService = await rendered(chart);
    const listed = withoutValue(chart);
    const read = new Set<string>();
    for (const service of charts[chart]!.services) {
      const names = loaderNames(service);
      names.forEach((name) => read.add(name));
      const set = byService.get(service)?.names ?? new Set<string>();
      t.same(
        [...names].filter((name) => !set.has(name) && !listed.has(name) && !kubeletVars.has(name)).sort(),
        [],
        `${service}: no variable is without a value and unlisted`,
      );
      // The scan is no narrower than a run: every name a loader read while judging the rendered environments.
      for (const env of byService.get(service)?.envs ?? []) {
        const { read: atRun } = load(service, env);
        t.same(
          [...atRun].filter((name) => /^[A-Z]/.test(name) && !names.has(name)),
          [],
          `${service}: the scan finds every variable the loader read at run time`,
        );
      }
    }
    t.same(
      [...listed.keys()].filter((name) => !read.has(name)),
      [],
      'the README lists only variables a loader reads',
    );
    const setByChart = new Set([...byService.values()].flatMap((entry) => [...entry.names]));
    t.same(
      [...listed.keys()].filter((name) => setByChart.has(name)),
      [],
      'and none the chart sets',
    );
    // What the README says is refused in extraEnv is refused, naming the value to set instead.
    const values = charts[chart]!.valueSets[0]!;
    for (const [name, row] of listed) {
      if (!row.includes('refused in `extraEnv`')) continue;
      const extra = { extraEnv: [{ name, value: 'x' }] };
      const withExtra = chart === 'platform' ? merged(values, { apiServer: extra }) : merged(values, extra);
      const result = await helm.run(['template', 'gsp', chartDir(chart), ...valuesArgs(withExtra)]);
      t.match(result.stderr, `extraEnv: ${name} may not be set here; set `, `${name} in extraEnv is refused`);
    }
  });
}

/** The tuning variables each service's chart now sets; their defaults must be the service's own. */
const tuning: Record<string, string[]> = {
  'api-server': [
    'DATABASE_CONNECT_TIMEOUT',
    'DATABASE_STATEMENT_TIMEOUT',
    'EVENTS_HEARTBEAT',
    'EVENTS_REPLAY_LIMIT',
    'EVENTS_MAX_BACKLOG_BYTES',
    'PRESENCE_SWEEP_INTERVAL',
    'HTTP_HEADERS_TIMEOUT',
    'HTTP_REQUEST_TIMEOUT',
    'HTTP_KEEP_ALIVE_TIMEOUT',
    'AUTH_CLOCK_TOLERANCE',
    'AUTH_JWT_AUDIENCE',
    'CONSOLE_SIGN_IN_LIMIT',
    'CONSOLE_SIGN_IN_SWEEP_INTERVAL',
    'AUDIT_EXPORT_BACKOFF_BASE',
  ],
  'cluster-proxy': [
    'PRESENCE_LEASE',
    'AUTH_CLOCK_TOLERANCE',
    'HTTP_HEADERS_TIMEOUT',
    'HTTP_REQUEST_TIMEOUT',
    'HTTP_KEEP_ALIVE_TIMEOUT',
  ],
  'control-plane': [
    'AUTH_OIDC_JWKS_COOLDOWN',
    'AUTH_CLOCK_TOLERANCE',
    'CONSOLE_TICKET_TTL',
    'PANEL_SESSION_TTL_SECONDS',
    'PANEL_SIGN_IN_LIMIT',
    'KUBE_REQUEST_TIMEOUT',
    'KUBE_WATCH_TIMEOUT',
    'HTTP_HEADERS_TIMEOUT',
    'HTTP_REQUEST_TIMEOUT',
    'HTTP_KEEP_ALIVE_TIMEOUT',
    'AUDIT_EXPORT_BACKOFF_BASE',
    'AUDIT_SPOOL_DRAIN',
  ],
  'tunnel-agent': ['KUBE_REQUEST_TIMEOUT', 'HTTP_HEADERS_TIMEOUT', 'HTTP_REQUEST_TIMEOUT', 'HTTP_KEEP_ALIVE_TIMEOUT'],
};

t.test('the new tuning values default to what each service does without them', async (t) => {
  for (const chart of Object.keys(charts)) {
    const byService = await rendered(chart);
    for (const service of charts[chart]!.services) {
      const env = byService.get(service)!.envs[0]!;
      const names = tuning[service]!;
      t.same(
        names.filter((name) => env[name] === undefined),
        [],
        `${service}: the chart sets them`,
      );
      const without = Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
      t.same(loaders[service]!(env), loaders[service]!(without), `${service}: the same configuration without them`);
    }
  }
});
