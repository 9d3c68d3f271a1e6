import https from 'node:https';
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import type { TunnelAgentConfig } from './config.js';

/** The narrow view of the agent's own cluster the tunnel needs: where, and with which credentials. */
export interface KubeTarget {
  /** The API server URL, without a trailing slash. */
  base: URL;
  /** Request options carrying the agent's credentials (headers, certificates, agent). */
  options: https.RequestOptions;
}

/** The one place a KubeConfig is built: from KUBE_API_URL and credentials, or in-cluster. */
export async function kubeTarget(config: TunnelAgentConfig['kube']): Promise<KubeTarget> {
  const kc = new KubeConfig();
  if (config === undefined) kc.loadFromCluster();
  else {
    kc.loadFromOptions({
      clusters: [{ name: 'target', server: config.url, caFile: config.caFile, skipTLSVerify: config.insecureSkipTlsVerify || config.url.startsWith('http:') }],
      users: [{ name: 'agent', token: config.token, certFile: config.clientCertFile, keyFile: config.clientKeyFile }],
      contexts: [{ name: 'target', cluster: 'target', user: 'agent' }],
      currentContext: 'target',
    });
  }
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the Kubernetes configuration names no API server');
  const options: https.RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(options);
  const base = new URL(server.replace(/\/+$/, ''));
  options.agent = base.protocol === 'https:' ? new https.Agent({ keepAlive: true, ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized }) : new http.Agent({ keepAlive: true });
  return { base, options };
}
