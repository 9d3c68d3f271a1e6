/**
 * A reference piece for the proxy benchmark, not product code: a TCP round-robin balancer in
 * front of proxy replicas, as a Kubernetes Service spreads connections over its endpoints. Each
 * new connection goes to the next backend of BALANCE_BACKENDS (comma-separated ports on
 * 127.0.0.1) and is piped both ways; nothing is parsed, so the TLS between kubectl and the
 * replica passes through untouched. Listens on BALANCE_PORT. Its own process, so the bench can
 * tell its CPU apart (a kube-proxy in iptables or IPVS mode costs no user-space CPU at all).
 */
import net from 'node:net';

const backends = (process.env.BALANCE_BACKENDS ?? '')
  .split(',')
  .filter((p) => p !== '')
  .map(Number);
if (backends.length === 0 || backends.some((p) => !Number.isInteger(p) || p <= 0))
  throw new Error(`BALANCE_BACKENDS must list ports, got "${process.env.BALANCE_BACKENDS ?? ''}"`);
let next = 0;

const server = net.createServer({ noDelay: true }, (client) => {
  const port = backends[next] as number;
  next = (next + 1) % backends.length;
  const upstream = net.connect({ host: '127.0.0.1', port, noDelay: true });
  for (const [a, b] of [
    [client, upstream],
    [upstream, client],
  ] as const) {
    a.on('error', () => b.destroy());
    a.on('close', () => b.destroy());
    a.pipe(b);
  }
});
server.listen(Number(process.env.BALANCE_PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  process.exit(0);
});
