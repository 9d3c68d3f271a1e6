/** The ports `npm start` opens: each moved by a variable of its own, and checked free before anything starts. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConfigError, parsePort } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

/** Every port npm start opens, by the variable that moves it (0: any free port); README lists them. */
export const PORTS = {
  KUBE_LITE_PORT: 6443,
  API_SERVER_PORT: 8081,
  API_SERVER_METRICS_PORT: 9092,
  CONTROL_PLANE_PORT: 8080,
  CONTROL_PLANE_METRICS_PORT: 9091,
  CLUSTER_PROXY_PORT: 8443,
  CLUSTER_PROXY_TUNNEL_PORT: 8444,
  CLUSTER_PROXY_METRICS_PORT: 9090,
  TUNNEL_AGENT_PORT: 8090,
  TUNNEL_AGENT_METRICS_PORT: 9093,
  DEV_ISSUER_PORT: 8082,
} as const;
export type PortVariable = keyof typeof PORTS;
export type Ports = Readonly<Record<PortVariable, number>>;

/**
 * The port of every variable of PORTS, claimed in order; those in `unused` (what does not run) are
 * not claimed and stay 0.
 */
export async function claimPorts(env: Env, unused: ReadonlySet<PortVariable>): Promise<Ports> {
  const taken = new Set<number>();
  const ports = {} as Record<PortVariable, number>;
  for (const variable of Object.keys(PORTS) as PortVariable[]) {
    ports[variable] = unused.has(variable) ? 0 : await claimPort(env, variable, taken);
  }
  return ports;
}

/**
 * The port of `variable`, checked free on 127.0.0.1 now, so a clash names npm start's variable and not a service's
 * PORT.
 */
async function claimPort(env: Env, variable: PortVariable, taken: Set<number>): Promise<number> {
  const wanted = parsePort(env, variable, PORTS[variable]);
  for (;;) {
    const port = await new Promise<number>((resolvePort, reject) => {
      const server = createServer();
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') return reject(err);
        const advice = `(another npm start?); set ${variable} to a free port, or 0 for any`;
        reject(new ConfigError(variable, `127.0.0.1:${wanted} is already in use ${advice}`));
      });
      server.listen(wanted, '127.0.0.1', () => {
        const { port: bound } = server.address() as AddressInfo;
        server.close(() => resolvePort(bound));
      });
    });
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
    if (wanted !== 0) throw new ConfigError(variable, `${port} is already npm start's for another variable`);
  }
}
