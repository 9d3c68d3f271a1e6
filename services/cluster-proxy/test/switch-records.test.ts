import t from 'tap';
import { bearer, kubectl, ORG, OPERATOR, PLATFORM_ADMIN, startRedisStack, until } from './stack.js';
import type { Stack } from './stack.js';
import { POLICY, TENANT_DECISION, works } from './workload.js';

const FLAG = 'cli_access.enabled';

const put = async (stack: Stack, url: string, subject: string, payload: object) => {
  const res = await stack.api.app.inject({ method: 'PUT', url, headers: await bearer(subject), payload });
  if (res.statusCode !== 200) throw new Error(`PUT ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

t.test(
  'a platform off with a reason and an expiry: kubectl prints both, a tenant sees who, why and until when, ' +
    'and kubectl works again within a second of the moment',
  async (t) => {
    // Agents back off up to 30 s, as by default: only the proxy saying when the switch expires gets them back in time.
    const stack = await startRedisStack(t, { clusters: 1, backoffMaxMs: 30_000 });
    const [a] = stack.clusters as [Stack['clusters'][0]];
    await until('the agent to connect', () => (a.agent.connected ? true : undefined));
    const kubeconfig = await a.kubeconfig();
    const expiresAt = new Date(Date.now() + 8000).toISOString();
    await put(stack, `/api/v1/platform/feature-flags/${FLAG}`, PLATFORM_ADMIN, {
      value: false,
      reason: 'incident 42',
      expiresAt,
    });

    const expected =
      `${POLICY} for cluster ${a.id}: ` +
      `set by a platform admin for the whole platform: "incident 42" (until ${expiresAt})`;
    const refused = await until(
      'kubectl to be refused',
      async () => {
        const r = await kubectl(kubeconfig, ['get', 'namespaces']);
        return r.code !== 0 ? r : undefined;
      },
      5000,
      50,
    );
    t.match(refused.stderr, expected, 'kubectl prints who, the reason and the expiry');

    const viewer = await bearer('viewer');
    const flags = await stack.api.app.inject({ url: '/api/v1/platform/feature-flags', headers: viewer });
    t.match(flags.json().flags[0], {
      value: false,
      source: 'platform',
      platformRecord: { actor: null, actorRole: 'platform-admin', reason: 'incident 42', expiresAt },
    });
    const access = await stack.api.app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${a.id}/access`,
      headers: viewer,
    });
    t.match(access.json().cliAccess, {
      enabled: false,
      source: 'platform',
      record: { actor: null, reason: 'incident 42', expiresAt },
    });

    await until('the tunnel to close', () => (!a.agent.connected ? true : undefined));
    const back = await until('kubectl to work again', () => works(kubeconfig), 20_000, 50);
    const late = Date.now() - Date.parse(expiresAt);
    t.ok(back);
    t.comment(`kubectl worked again ${late} ms after expiresAt`);
    t.ok(late < 1000, 'within 1 s of expiresAt');
  },
);

t.test(
  "a tenant operator's off for the cluster is the tenant's decision in kubectl's refusal, with its reason",
  async (t) => {
    const stack = await startRedisStack(t, { clusters: 1 });
    const [a] = stack.clusters as [Stack['clusters'][0]];
    await until('the agent to connect', () => (a.agent.connected ? true : undefined));
    const kubeconfig = await a.kubeconfig();
    await put(stack, `/api/v1/platform/feature-flags/${FLAG}`, PLATFORM_ADMIN, { value: false, reason: 'incident 42' });
    await put(stack, `/api/v1/tenants/${ORG}/clusters/${a.id}/feature-flags/${FLAG}`, OPERATOR, {
      value: false,
      reason: 'draining before the upgrade',
    });
    const refused = await until(
      'kubectl to name the cluster override',
      async () => {
        const r = await kubectl(kubeconfig, ['get', 'namespaces']);
        return r.stderr.includes('for this cluster') ? r : undefined;
      },
      5000,
      50,
    );
    t.match(
      refused.stderr,
      `${TENANT_DECISION} for cluster ${a.id}: ` +
        `set by tenant operator ${OPERATOR} for this cluster: "draining before the upgrade"`,
    );
    t.notMatch(refused.stderr, POLICY, "not called the platform's policy: the tenant decided it");
    t.notMatch(refused.stderr, 'incident 42', 'not the platform value, which the override hides');
  },
);
