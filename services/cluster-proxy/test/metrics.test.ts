import t from 'tap';
import { startStack, until } from './stack.js';

/** The value of one sample line of a Prometheus text exposition, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

t.test(
  'the proxy counts what kubectl got, tunnels opened and refused, and switch closes on METRICS_PORT',
  async (t) => {
    const stack = await startStack(t);
    const [cluster] = stack.clusters;
    await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
    const token = await stack.proxyToken(cluster!.id);
    const get = () => stack.proxyStatus(cluster!.id, '/api/v1/namespaces', token);
    const scrape = async () => {
      const answer = await fetch(stack.metricsUrl);
      t.equal(answer.status, 200);
      return answer.text();
    };

    t.equal(await get(), 200);
    t.equal(await get(), 200);
    let text = await scrape();
    t.equal(sample(text, 'gsp_proxy_requests_total{kind="request",code="200"}'), 2, 'two answered GETs');
    t.equal(sample(text, 'gsp_proxy_tunnels'), 1, 'one live tunnel');
    t.equal(sample(text, 'gsp_proxy_tunnel_connections_total{result="accepted"}'), 1);

    await stack.setSwitch(false, cluster!.id);
    await until('the tunnel to close', () => (stack.proxy.registry.get(cluster!.id) === undefined ? true : undefined));
    t.equal(await get(), 410);
    text = await until('a refused reconnect to be counted', async () => {
      const now = await scrape();
      return sample(now, 'gsp_proxy_tunnel_connections_total{result="switch_off"}') >= 1 ? now : undefined;
    });
    t.equal(
      sample(text, 'gsp_proxy_requests_total{kind="request",code="410"}'),
      1,
      'the refusal is counted with its status',
    );
    t.equal(sample(text, 'gsp_proxy_tunnels_closed_by_switch_total'), 1, 'the live tunnel was closed by the switch');
    t.equal(sample(text, 'gsp_proxy_tunnels'), 0);
    t.match(text, /process_cpu_user_seconds_total/, 'process metrics too');

    const other = await fetch(stack.metricsUrl.replace('/metrics', '/clusters'));
    t.equal(other.status, 404, 'nothing but /metrics on that port');
    await other.text();
  },
);
