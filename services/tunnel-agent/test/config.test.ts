import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRefusals, refusedVariable } from '@gsp/service-kit/testing/config';
import { loadConfig } from '../src/config.js';

const BASE = {
  PROXY_TUNNEL_URL: 'http://127.0.0.1:8444',
  CLUSTER_ID: 'c-1',
  AGENT_TOKEN: 'agent-token',
  KUBE_API_URL: 'https://10.0.0.1:6443',
};

t.test('the documented defaults', async (t) => {
  const config = loadConfig(BASE);
  t.equal(config.backoffInitialMs, 1000);
  t.equal(config.backoffMaxMs, 10_000);
  t.equal(config.syncIntervalMs, 1000);
  t.equal(config.drainGraceMs, 10_000);
  t.equal(loadConfig({ ...BASE, AGENT_DRAIN_GRACE: '0s' }).drainGraceMs, 0, 'no grace: closed at once');
  t.equal(config.backoffResetMs, 60_000);
  t.equal(config.pingIntervalMs, 30_000);
  t.equal(config.connectTimeoutMs, 10_000);
  t.equal(loadConfig({ ...BASE, AGENT_CONNECT_TIMEOUT: '2.5s' }).connectTimeoutMs, 2500);
  t.equal(config.kubeRequestTimeoutMs, 60_000);
  t.equal(loadConfig({ ...BASE, KUBE_REQUEST_TIMEOUT: '5s' }).kubeRequestTimeoutMs, 5000);
  t.same(config.http, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 });
  t.equal(config.proxyCa, undefined);
  t.equal(config.port, 8080);
  t.equal(config.metricsPort, 9093);
  t.equal(config.host, '0.0.0.0');
  t.same(config.kube, {
    url: BASE.KUBE_API_URL,
    token: undefined,
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.equal(loadConfig({ ...BASE, KUBE_API_URL: '' }).kube, undefined, 'no KUBE_API_URL: in-cluster config');
  t.equal(loadConfig({ ...BASE, KUBE_INSECURE_SKIP_TLS_VERIFY: 'true' }).kube?.insecureSkipTlsVerify, true);
});

t.test('each misconfiguration is refused, naming the variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ ...BASE, PROXY_TUNNEL_URL: '' }, 'PROXY_TUNNEL_URL'],
    [{ ...BASE, PROXY_TUNNEL_URL: 'ftp://proxy' }, 'PROXY_TUNNEL_URL'],
    [{ ...BASE, CLUSTER_ID: ' ' }, 'CLUSTER_ID'],
    [{ ...BASE, AGENT_TOKEN: '' }, 'AGENT_TOKEN'],
    [{ ...BASE, AGENT_TOKEN_FILE: '/nonexistent/token' }, 'AGENT_TOKEN'],
    [{ ...BASE, AGENT_TOKEN: '', AGENT_TOKEN_FILE: '/nonexistent/token' }, 'AGENT_TOKEN_FILE'],
    [{ ...BASE, KUBE_API_URL: 'not a url' }, 'KUBE_API_URL'],
    [{ ...BASE, KUBE_CLIENT_CERT_FILE: '/tls.crt' }, 'KUBE_CLIENT_KEY_FILE'],
    [{ ...BASE, AGENT_BACKOFF_MAX: '0s' }, 'AGENT_BACKOFF_MAX'],
    [{ ...BASE, AGENT_BACKOFF_MAX: 'soon' }, 'AGENT_BACKOFF_MAX'],
    [{ ...BASE, AGENT_BACKOFF_INITIAL: '1m', AGENT_BACKOFF_MAX: '30s' }, 'AGENT_BACKOFF_INITIAL'],
    [{ ...BASE, PORT: 'http' }, 'PORT'],
    [{ ...BASE, PORT: '70000' }, 'PORT'],
    [{ ...BASE, METRICS_PORT: 'prometheus' }, 'METRICS_PORT'],
    [{ ...BASE, KUBE_INSECURE_SKIP_TLS_VERIFY: 'yes' }, 'KUBE_INSECURE_SKIP_TLS_VERIFY'],
    [{ ...BASE, AGENT_PING_INTERVAL: '10ms' }, 'AGENT_PING_INTERVAL'],
    [{ ...BASE, AGENT_SYNC_INTERVAL: '1ms' }, 'AGENT_SYNC_INTERVAL'],
    [{ ...BASE, AGENT_DRAIN_GRACE: 'later' }, 'AGENT_DRAIN_GRACE'],
    [{ ...BASE, PROXY_CA_FILE: '/ca.crt' }, 'PROXY_CA_FILE'],
    [{ ...BASE, PROXY_TUNNEL_URL: 'https://proxy:8444', PROXY_CA_FILE: '/nonexistent/ca.crt' }, 'PROXY_CA_FILE'],
    [{ ...BASE, AGENT_PING_INTERVAL: 'often' }, 'AGENT_PING_INTERVAL'],
    [{ ...BASE, AGENT_CONNECT_TIMEOUT: '5ms' }, 'AGENT_CONNECT_TIMEOUT'],
    [{ ...BASE, AGENT_CONNECT_TIMEOUT: 'soon' }, 'AGENT_CONNECT_TIMEOUT'],
    [{ ...BASE, KUBE_REQUEST_TIMEOUT: 'soon' }, 'KUBE_REQUEST_TIMEOUT'],
    [{ ...BASE, KUBE_REQUEST_TIMEOUT: '5ms' }, 'KUBE_REQUEST_TIMEOUT'],
    [{ ...BASE, HTTP_HEADERS_TIMEOUT: 'soon' }, 'HTTP_HEADERS_TIMEOUT'],
    [{ ...BASE, HTTP_REQUEST_TIMEOUT: '0s' }, 'HTTP_REQUEST_TIMEOUT'],
  ];
  checkRefusals(t, loadConfig, cases);
});

t.test('tokens come from a file when given one, never both ways', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
  writeFileSync(join(dir, 'token'), 'from-file\n');
  t.equal(loadConfig({ ...BASE, AGENT_TOKEN: '', AGENT_TOKEN_FILE: join(dir, 'token') }).agentToken, 'from-file');
  t.equal(
    refusedVariable(loadConfig, { ...BASE, AGENT_TOKEN_FILE: join(dir, 'token') }),
    'AGENT_TOKEN',
    'AGENT_TOKEN and AGENT_TOKEN_FILE together',
  );
  const kube = loadConfig({ ...BASE, KUBE_TOKEN_FILE: join(dir, 'token') }).kube;
  t.equal(kube?.token, 'from-file');
});
