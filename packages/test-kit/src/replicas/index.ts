/**
 * Several cluster-proxy replicas as real processes on one database, behind TCP round-robin
 * balancers (one for kubectl, one for the agents' tunnels), with one self-signed certificate: what
 * the cluster proxy's and the tunnel agent's replica tests share. The API server the replicas
 * call and the agents that dial them are each test's own: the set is made first (the API server
 * needs its balancer's URL and certificate), then started with the replicas' environment.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import type { Tap } from '../tap.js';
import { Balancer } from './balancer.js';
import type { BalancerOptions } from './balancer.js';
import { freePort, Replica } from './replica.js';

export { Balancer } from './balancer.js';
export type { Backend, BalancerOptions, Passed } from './balancer.js';
export { freePort, Replica, request } from './replica.js';
export type { Exit, RequestOptions, Response } from './replica.js';

/** TUNNEL_DEBUG=1: the replicas log at debug level and their logs are kept. */
export const debug = process.env.TUNNEL_DEBUG === '1';

/** What tap gives the set: teardowns, and whether the test passed (a failed test keeps the replicas' logs). */
export type ReplicaTap = Tap & { passing(): boolean };

export interface ReplicaSetOptions {
  /** The tunnel balancer's behaviour (`onBackendLoss`). */
  tunnelBalancer?: BalancerOptions;
  /**
   * Readiness as a Service sees it: each replica's /readyz is read every 100 ms, and the balancers
   * skip a replica that is not ready. Without it a replica gets connections from the moment it is
   * ready until the test sets its backend's `ready` to false.
   */
  readinessProbe?: boolean;
}

export interface ReplicaSet {
  /** Where the certificate, the replicas' logs and a test's own files go; kept when the test fails. */
  dir: string;
  /** The replicas' certificate (PEM), which a client trusts. */
  ca: string;
  certFile: string;
  kubectlBalancer: Balancer;
  tunnelBalancer: Balancer;
  /** `https://127.0.0.1:<kubectl balancer>`: the kubeconfigs' server (the API server's PROXY_PUBLIC_URL). */
  balancerUrl: string;
  /** `http://127.0.0.1:<tunnel balancer>`: the agents' PROXY_TUNNEL_URL. */
  tunnelUrl: string;
  /** r1, r2, … in the order they were added. */
  replicas: Replica[];
  /**
   * Starts `count` replicas (in parallel) and waits until each is ready. `env` is every replica's
   * environment from now on (DATABASE_URL and API_SERVER_URL at least), over the set's own.
   */
  start(count: number, env: Record<string, string>): Promise<Replica[]>;
  /** Starts one more replica (`r<n>`, new ports, behind both balancers) and waits until it is ready. */
  addReplica(): Promise<Replica>;
  /** The live tunnels each replica reports (gsp_proxy_tunnels), by id; -1 when its metrics do not answer. */
  tunnelGauges(): Promise<Record<string, number>>;
}

/** The certificate and both balancers, listening; no replica runs until `start`. Everything stops with `t`. */
export async function replicaSet(t: ReplicaTap, options: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-replicas-'));
  // The replicas' logs stay for a failed test.
  t.teardown(() => {
    if (t.passing() && !debug) rmSync(dir, { recursive: true, force: true });
    else console.error(`# replica logs kept in ${dir}`);
  });
  const certificate = generateSelfSignedCertificate('gsp-cluster-proxy');
  const certFile = join(dir, 'proxy.crt');
  const keyFile = join(dir, 'proxy.key');
  writeFileSync(certFile, certificate.cert);
  writeFileSync(keyFile, certificate.key);
  const ca = certificate.cert;

  const kubectlBalancer = new Balancer();
  const tunnelBalancer = new Balancer(options.tunnelBalancer);
  const balancerUrl = `https://${await kubectlBalancer.listen(t)}`;
  const tunnelUrl = `http://${await tunnelBalancer.listen(t)}`;

  const replicas: Replica[] = [];
  let env: Record<string, string> = {};
  /** A replica with its ports, behind both balancers (not ready yet), not started. */
  const create = async (): Promise<Replica> => {
    const [port, tunnelPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const replica = new Replica(`r${replicas.length + 1}`, port, tunnelPort, metricsPort, env, dir, ca);
    replicas.push(replica);
    t.teardown(() => replica.kill());
    kubectlBalancer.add(replica.id, port).ready = false;
    tunnelBalancer.add(replica.id, tunnelPort).ready = false;
    return replica;
  };
  const launch = async (replica: Replica): Promise<Replica> => {
    await replica.start();
    if (!options.readinessProbe)
      for (const balancer of [kubectlBalancer, tunnelBalancer]) balancer.backend(replica.id).ready = true;
    return replica;
  };
  if (options.readinessProbe) probeReadiness(t, replicas, [kubectlBalancer, tunnelBalancer]);

  return {
    dir,
    ca,
    certFile,
    kubectlBalancer,
    tunnelBalancer,
    balancerUrl,
    tunnelUrl,
    replicas,
    async start(count, more) {
      env = {
        HOST: '127.0.0.1',
        TLS_CERT_FILE: certFile,
        TLS_KEY_FILE: keyFile,
        // A heartbeat every 500 ms: the replicas count each other (and a scale-up reaches agents) that fast.
        PRESENCE_LEASE: '1500ms',
        LOG_LEVEL: debug ? 'debug' : 'info',
        ...more,
      };
      const created: Replica[] = [];
      for (let i = 0; i < count; i++) created.push(await create());
      return Promise.all(created.map(launch));
    },
    addReplica: async () => launch(await create()),
    async tunnelGauges() {
      const gauges = await Promise.all(replicas.map(async (r) => [r.id, (await r.metric('gsp_proxy_tunnels')) ?? -1]));
      return Object.fromEntries(gauges);
    },
  };
}

/** Reads every replica's /readyz every 100 ms and passes the answer on to its backends, until `t` ends. */
function probeReadiness(t: Tap, replicas: Replica[], balancers: Balancer[]): void {
  let probing = true;
  const probe = (async () => {
    while (probing) {
      await Promise.all(
        replicas.map(async (r) => {
          const ready = r.running && (await r.ready());
          for (const balancer of balancers) balancer.backend(r.id).ready = ready;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  t.teardown(async () => {
    probing = false;
    await probe;
  });
}
