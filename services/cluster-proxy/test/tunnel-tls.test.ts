import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { registerCluster } from '@gsp/api-server/testing';
import { agentEnv, ORG, startAgentApp, startStack, until } from './stack.js';

t.test('with TUNNEL_TLS_CERT_FILE agents dial in over TLS, and only trust what they are told to', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-tunnel-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tunnelCertificate = generateSelfSignedCertificate('gsp-tunnel');
  writeFileSync(join(dir, 'tunnel.crt'), tunnelCertificate.cert);
  writeFileSync(join(dir, 'tunnel.key'), tunnelCertificate.key, { mode: 0o600 });
  const stack = await startStack(t, {
    clusters: 0,
    proxyEnv: { TUNNEL_TLS_CERT_FILE: join(dir, 'tunnel.crt'), TUNNEL_TLS_KEY_FILE: join(dir, 'tunnel.key') },
  });
  t.match(stack.tunnelUrl, /^https:\/\//, 'the proxy reports an https tunnel endpoint');

  const kube = await startKubeLite({ port: 0 });
  t.teardown(() => kube.close());
  const { id, agentToken } = await registerCluster(stack.api.app, ORG, 'tls');
  const agentWith = async (env: Record<string, string>) =>
    (await startAgentApp(t, { ...agentEnv({ id, agentToken, kube }), ...env })).agent;

  const untrusting = await agentWith({ PROXY_TUNNEL_URL: stack.tunnelUrl });
  await until('a refused handshake', () => (untrusting.lastError ? true : undefined));
  t.match(
    untrusting.lastError?.message,
    /certificate/i,
    `without PROXY_CA_FILE the self-signed certificate is refused: ${untrusting.lastError?.message}`,
  );
  const plain = await agentWith({ PROXY_TUNNEL_URL: stack.tunnelUrl.replace('https:', 'http:') });
  await until('a failed h2c attempt', () => (plain.lastError ? true : undefined));
  t.notOk(untrusting.connected || plain.connected, 'neither connects');
  await untrusting.stop();
  await plain.stop();

  const trusting = await agentWith({ PROXY_TUNNEL_URL: stack.tunnelUrl, PROXY_CA_FILE: join(dir, 'tunnel.crt') });
  await until('the agent to connect over TLS', () => (trusting.connected ? true : undefined));
  const status = await stack.proxyStatus(id, '/api/v1/namespaces', await stack.proxyToken(id));
  t.equal(status, 200, 'kubectl traffic crosses the TLS tunnel');
});
