import t from 'tap';
import fc from 'fast-check';
import { CONTROL_CHARACTERS } from '@gsp/platform-contract';
import { checkRefusals } from '@gsp/service-kit/testing/config';
import { loadConfig } from '../src/config.js';

const BASE = { DATABASE_URL: 'postgres://proxy@db:5432/gsp', API_SERVER_URL: 'http://api:8081' };

t.test('the documented defaults', async (t) => {
  const config = loadConfig(BASE);
  t.equal(config.port, 8443);
  t.equal(config.tunnelPort, 8444);
  t.equal(config.metricsPort, 9090);
  t.equal(config.host, '127.0.0.1');
  t.equal(config.flagsCacheTtlMs, 10_000);
  t.equal(config.staleMode, 'best_effort');
  t.equal(config.watchIntervalMs, 2000);
  t.equal(config.pingIntervalMs, 30_000);
  t.equal(config.redisUrl, undefined);
  t.equal(config.tls, undefined, 'no certificate: self-signed at start');
  t.equal(config.tunnelTls, undefined, 'no tunnel certificate: h2c');
  t.same([...config.pins], [], 'not pinned');
  t.same(
    config.http,
    { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 },
    'kubectl keeps idle connections 90 s',
  );
  t.same([...loadConfig({ ...BASE, SERVICE_CLI_ACCESS_ENABLED: 'false' }).pins], [['cli_access.enabled', false]]);
  t.equal(config.presenceLeaseMs, 15_000);
});

t.test('each process is a replica of its own unless PROXY_REPLICA_ID names it', async (t) => {
  const [a, b] = [loadConfig(BASE).replicaId, loadConfig(BASE).replicaId];
  t.match(a, new RegExp(`-${process.pid}-[0-9a-f]{8}$`), 'host, pid and a random part');
  t.not(a, b, 'a restart is another replica');
  t.equal(loadConfig({ ...BASE, PROXY_REPLICA_ID: 'gsp-proxy-0' }).replicaId, 'gsp-proxy-0');
  t.equal(loadConfig({ ...BASE, PROXY_REPLICA_ID: 'é'.repeat(253) }).replicaId.length, 253);
});

t.test('PROXY_REPLICA_ID: any value without control characters, up to 253 characters, is taken as given', async (t) => {
  const edgy = fc.constantFrom('\0', '\t', '\n', '\x1f', ' ', '\x7f', '\x85', '\x9f', '\xa0', 'a', '-', '名');
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: edgy, maxLength: 40 }),
    fc.string({ unit: edgy, minLength: 250, maxLength: 256 }),
  );
  fc.assert(
    fc.property(value, (raw) => {
      const given = raw.trim();
      const ok = !CONTROL_CHARACTERS.test(given) && given.length <= 253;
      const env = { ...BASE, PROXY_REPLICA_ID: raw };
      if (given === '') return new RegExp(`-${process.pid}-[0-9a-f]{8}$`).test(loadConfig(env).replicaId);
      if (ok) return loadConfig(env).replicaId === given;
      try {
        loadConfig(env);
        return false;
      } catch (err) {
        return (err as { variable?: string }).variable === 'PROXY_REPLICA_ID';
      }
    }),
  );
  t.pass('accepted exactly when the rule holds, refused naming the variable otherwise');
});

t.test('each misconfiguration is refused, naming the variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ ...BASE, DATABASE_URL: '' }, 'DATABASE_URL'],
    [{ ...BASE, DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
    [{ ...BASE, API_SERVER_URL: '' }, 'API_SERVER_URL'],
    [{ ...BASE, API_SERVER_URL: 'api:8081' }, 'API_SERVER_URL'],
    [{ ...BASE, SERVICE_CLI_ACCESS_ENABLED: 'yes' }, 'SERVICE_CLI_ACCESS_ENABLED'],
    [{ ...BASE, SERVICE_CLI_ACCESS_STALE_MODE: 'lenient' }, 'SERVICE_CLI_ACCESS_STALE_MODE'],
    [{ ...BASE, SERVICE_CACHE_FLAGS_TTL: 'soon' }, 'SERVICE_CACHE_FLAGS_TTL'],
    [{ ...BASE, TUNNEL_WATCH_INTERVAL: '1ms' }, 'TUNNEL_WATCH_INTERVAL'],
    [{ ...BASE, TUNNEL_PING_INTERVAL: '10ms' }, 'TUNNEL_PING_INTERVAL'],
    [{ ...BASE, TUNNEL_PING_INTERVAL: 'often' }, 'TUNNEL_PING_INTERVAL'],
    [{ ...BASE, TLS_CERT_FILE: '/tls.crt' }, 'TLS_KEY_FILE'],
    [{ ...BASE, TLS_CERT_FILE: '/nonexistent/tls.crt', TLS_KEY_FILE: '/nonexistent/tls.key' }, 'TLS_CERT_FILE'],
    [{ ...BASE, TUNNEL_TLS_KEY_FILE: '/tunnel.key' }, 'TUNNEL_TLS_CERT_FILE'],
    [
      { ...BASE, TUNNEL_TLS_CERT_FILE: '/nonexistent/t.crt', TUNNEL_TLS_KEY_FILE: '/nonexistent/t.key' },
      'TUNNEL_TLS_CERT_FILE',
    ],
    [{ ...BASE, REDIS_URL: 'http://redis' }, 'REDIS_URL'],
    [{ ...BASE, PORT: '70000' }, 'PORT'],
    [{ ...BASE, TUNNEL_PORT: 'h2' }, 'TUNNEL_PORT'],
    [{ ...BASE, METRICS_PORT: '-1' }, 'METRICS_PORT'],
    [{ ...BASE, HTTP_HEADERS_TIMEOUT: 'soon' }, 'HTTP_HEADERS_TIMEOUT'],
    [{ ...BASE, HTTP_REQUEST_TIMEOUT: '1ms' }, 'HTTP_REQUEST_TIMEOUT'],
    [{ ...BASE, HTTP_KEEP_ALIVE_TIMEOUT: 'later' }, 'HTTP_KEEP_ALIVE_TIMEOUT'],
    [{ ...BASE, PRESENCE_LEASE: 'long' }, 'PRESENCE_LEASE'],
    [{ ...BASE, PRESENCE_LEASE: '100ms' }, 'PRESENCE_LEASE'],
    [{ ...BASE, PROXY_REPLICA_ID: 'a\u0000b' }, 'PROXY_REPLICA_ID'],
    [{ ...BASE, PROXY_REPLICA_ID: 'proxy\u007f1' }, 'PROXY_REPLICA_ID'],
    [{ ...BASE, PROXY_REPLICA_ID: 'p'.repeat(254) }, 'PROXY_REPLICA_ID'],
  ];
  checkRefusals(t, loadConfig, cases);
});
