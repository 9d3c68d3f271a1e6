import t from 'tap';
import { agentEnv, startAgentApp, startStack, until } from './stack.js';

t.test("the agent's /readyz follows the tunnel; /healthz only says the process runs", async (t) => {
  const stack = await startStack(t);
  const [cluster] = stack.clusters;
  // This test's agent takes the cluster's place (a second connection would replace the first).
  await cluster!.agent.stop();
  const env = { ...agentEnv(cluster!), PROXY_TUNNEL_URL: stack.tunnelUrl };

  const good = await startAgentApp(t, env);
  const ready = await until('the agent to report ready', async () => {
    const res = await good.app.inject('/readyz');
    return res.statusCode === 200 ? res : undefined;
  });
  t.match(ready.json(), { connected: true });
  t.equal((await good.app.inject('/healthz')).statusCode, 200);

  // A wrong token: alive, never ready, and the reason is the proxy's refusal.
  const bad = await startAgentApp(t, { ...env, AGENT_TOKEN: 'not-the-agent-token' });
  await until('a refused attempt', () => (bad.agent.lastError ? true : undefined));
  t.equal(
    bad.agent.lastError?.rawMessage,
    'unknown agent token: register the cluster (or rotate its token) and use the token it returned',
  );
  const notReady = await bad.app.inject('/readyz');
  t.equal(notReady.statusCode, 503);
  t.match(notReady.json(), { connected: false });
  t.equal((await bad.app.inject('/healthz')).statusCode, 200);

  // The switch off: the stream ends, /readyz turns 503; back on, it recovers without a restart.
  await stack.setSwitch(false);
  await until('the agent to report not ready', async () =>
    (await good.app.inject('/readyz')).statusCode === 503 ? true : undefined,
  );
  await stack.setSwitch(true);
  await until('the agent to report ready again', async () =>
    (await good.app.inject('/readyz')).statusCode === 200 ? true : undefined,
  );
});

/** The value of one sample line of a Prometheus text exposition, 0 when absent. */
const sample = (text: string, series: string): number =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

t.test("the agent's /metrics counts what its API server answered and why its tunnel ended", async (t) => {
  const stack = await startStack(t);
  const [cluster] = stack.clusters;
  await cluster!.agent.stop(); // this test's agent takes the cluster's place
  const agent = await startAgentApp(t, {
    ...agentEnv(cluster!),
    PROXY_TUNNEL_URL: stack.tunnelUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
  });
  const { metricsUrl } = await agent.listen();
  await until('the agent to connect', () => (agent.agent.connected ? true : undefined));
  const token = await stack.proxyToken(cluster!.id);
  t.equal(await stack.proxyStatus(cluster!.id, '/api/v1/namespaces', token), 200);
  t.equal(await stack.proxyStatus(cluster!.id, '/api/v1/namespaces/nowhere', token), 404);
  const metrics = async () => {
    const res = await fetch(metricsUrl);
    t.equal(res.status, 200);
    return res.text();
  };
  let text = await metrics();
  t.equal(sample(text, 'gsp_agent_connected'), 1);
  t.equal(sample(text, 'gsp_agent_responses_total{code="200"}'), 1);
  t.equal(sample(text, 'gsp_agent_responses_total{code="404"}'), 1, 'answers are counted by status');

  await stack.setSwitch(false);
  text = await until('a refused reconnect to be counted', async () => {
    const now = await metrics();
    return sample(now, 'gsp_agent_tunnel_endings_total{code="unavailable"}') >= 1 ? now : undefined;
  });
  t.equal(sample(text, 'gsp_agent_connected'), 0);
  await stack.setSwitch(true);
});
