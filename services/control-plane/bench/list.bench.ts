/**
 * Listing game servers: GET /api/v1/gameservers with an API key (answered from the control
 * plane's informer cache), side by side with the same list fetched straight from kube-lite
 * (`GET /apis/agones.dev/v1/gameservers`), with a filtered list (`?labelSelector=team=red`, half
 * of them, assembled per request) and with GET /api/v1/session (the cost of a request
 * with no list at all), over BENCH_GAMESERVERS game servers (default 1,000). Targets alternate
 * round by round like auth.bench.ts; each ratio is the median over rounds.
 * `npm run bench -w services/control-plane`. Target: the cached list at least 2x kube-lite's.
 */
import { connections, duration, line, median, rounds, startServers } from './harness.js';
import type { Run, Target } from './harness.js';

const { setup, run, stop } = await startServers();
const headers = { 'x-api-key': setup.apiKey };
const targets: Target[] = [
  { name: 'control plane list (cached)', url: `http://127.0.0.1:${setup.authed}/api/v1/gameservers`, headers },
  { name: 'kube-lite list (straight)', url: `${setup.kube}/apis/agones.dev/v1/gameservers`, headers: {} },
  {
    name: 'control plane, team=red (500)',
    url: `http://127.0.0.1:${setup.authed}/api/v1/gameservers?labelSelector=team%3Dred`,
    headers,
  },
  { name: 'control plane session', url: `http://127.0.0.1:${setup.authed}/api/v1/session`, headers },
];

try {
  console.log(
    `${setup.gameServers} game servers; autocannon, ${connections} connections, ` +
      `${rounds} alternating rounds of ${duration} s per target; Node ${process.version}\n`,
  );
  for (const target of targets) await run(target, 2);
  const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  const ratios = { list: [] as number[], filtered: [] as number[], session: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const measured: Run[] = [];
    for (const target of targets) {
      const r = await run(target, duration);
      runs.get(target.name)?.push(r);
      measured.push(r);
    }
    const [cached, straight, filtered, session] = measured as [Run, Run, Run, Run];
    ratios.list.push(cached.rps / straight.rps);
    ratios.filtered.push(filtered.rps / straight.rps);
    ratios.session.push(cached.rps / session.rps);
  }
  for (const target of targets) console.log(line(target.name, runs.get(target.name) ?? []));
  const list = median(ratios.list);
  console.log('');
  console.log(
    `ratio cached list / kube-lite list: ${list.toFixed(2)}  (target >= 2: ${list >= 2 ? 'met' : 'NOT met'})   ` +
      `rounds: ${ratios.list.map((r) => r.toFixed(2)).join(' ')}`,
  );
  console.log(
    `ratio filtered list / kube-lite list: ${median(ratios.filtered).toFixed(2)}  ` +
      '(a selector, so the answer is assembled per request)',
  );
  console.log(
    `ratio cached list / session:        ${median(ratios.session).toFixed(3)}  ` +
      `(what listing ${setup.gameServers} servers costs over an empty answer)`,
  );
} finally {
  await stop();
}
