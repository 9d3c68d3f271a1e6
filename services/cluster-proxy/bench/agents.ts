/**
 * A reference piece for the proxy benchmark, not product code: many tunnel agents in one process,
 * to weigh what one agent connection costs. Each agent of AGENTS_FILE (a JSON list of
 * `{ id, agentToken }`, one registered cluster each) dials PROXY_TUNNEL_URL as the real agent does
 * (its own module, `startAgent`) and keeps one tunnel per proxy replica; all share one pool to
 * KUBE_API_URL, which is not part of a tunnel's cost. Run with `--expose-gc`: the heap is weighed
 * after a full collection, before the agents start and once every agent holds AGENTS_TUNNELS
 * tunnels; each weighing is printed as one JSON line `{ "phase", "tunnels", "rss", "heapUsed", ... }`.
 * Stops on SIGTERM.
 */
import { readFileSync } from 'node:fs';
// The emitted JavaScript, or the sources when the bench runs them (BENCH_FROM=src: tsx and the
// `@gsp/source` condition, which the package's exports map to its sources).
import { kubeTarget, startAgent } from '@gsp/tunnel-agent';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const clusters = JSON.parse(readFileSync(process.env.AGENTS_FILE ?? '', 'utf8')) as {
  id: string;
  agentToken: string;
}[];
const perAgent = Number(process.env.AGENTS_TUNNELS ?? 1);

const weigh = (phase: string, tunnels: number) => {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  console.log(
    JSON.stringify({
      phase,
      tunnels,
      rss: m.rss,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    }),
  );
};

const kube = await kubeTarget({
  url: process.env.KUBE_API_URL ?? '',
  token: process.env.KUBE_TOKEN ?? '',
  clientCertFile: undefined,
  clientKeyFile: undefined,
  caFile: undefined,
  insecureSkipTlsVerify: true,
});
const quiet = { info() {}, warn() {}, error() {} };
const settle = () => new Promise((r) => setTimeout(r, 500));
await settle();
weigh('before', 0);
const agents = clusters.map((c) =>
  startAgent({
    proxyTunnelUrl: process.env.PROXY_TUNNEL_URL ?? '',
    clusterId: c.id,
    agentToken: c.agentToken,
    kube,
    backoffInitialMs: 10,
    backoffMaxMs: 200,
    backoffResetMs: 60_000,
    log: quiet,
  }),
);
const deadline = Date.now() + 60_000;
const held = () => agents.reduce((n, a) => n + a.tunnels, 0);
while (!agents.every((a) => a.tunnels === perAgent && a.target === perAgent)) {
  if (Date.now() > deadline)
    throw new Error(`the agents hold ${held()} tunnels after 60 s, not ${perAgent} each (${agents.length} agents)`);
  await new Promise((r) => setTimeout(r, 50));
}
await settle();
weigh('connected', held());

process.once('SIGTERM', () => {
  void Promise.all(agents.map((a) => a.stop())).then(async () => {
    await kube.close();
    process.exit(0);
  });
});
