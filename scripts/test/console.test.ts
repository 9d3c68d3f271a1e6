import t from 'tap';
import { DevConsole } from '../dev/console.js';

const line = (fields: Record<string, unknown>): string =>
  JSON.stringify({ time: 1, pid: 1, hostname: 'vm', ...fields });
const incoming = line({ level: 30, reqId: 'r1', req: { method: 'GET', url: '/readyz' }, msg: 'incoming request' });
const completed = line({ level: 30, reqId: 'r1', res: { statusCode: 200 }, msg: 'request completed' });

t.test('request logs are left out at the default level and shown at LOG_LEVEL=debug', async (t) => {
  const quiet = new DevConsole();
  t.equal(quiet.format('api-server', incoming), undefined);
  t.equal(quiet.format('api-server', completed), undefined);
  const listening = line({ level: 30, msg: 'Server listening at http://127.0.0.1:8081' });
  t.equal(quiet.format('api-server', listening), `[api-server] ${listening}`, 'the rest of the log is shown');
  const debug = new DevConsole({ logLevel: 'debug' });
  t.equal(debug.format('api-server', incoming), `[api-server] ${incoming}`);
});

t.test('audit lines are marked [audit]', async (t) => {
  const audit = line({ level: 'audit', method: 'GET', path: '/api/v1/session', status: 200 });
  t.equal(new DevConsole().format('control-plane', audit), `[audit] [control-plane] ${audit}`);
});

t.test('a warning repeated within the window is shown once, and again after it', async (t) => {
  let now = 0;
  const devConsole = new DevConsole({ repeatWindowMs: 60_000, now: () => now });
  const warn = line({ level: 40, msg: 'tunnel unavailable; reconnecting with backoff' });
  t.ok(devConsole.format('tunnel-agent', warn));
  now = 5_000;
  t.equal(devConsole.format('tunnel-agent', warn), undefined);
  t.ok(devConsole.format('cluster-proxy', warn), 'another service is another voice');
  t.ok(
    devConsole.format('tunnel-agent', line({ level: 50, msg: 'tunnel unavailable; reconnecting with backoff' })),
    'errors are never folded',
  );
  now = 61_000;
  t.ok(devConsole.format('tunnel-agent', warn));
});

t.test('while stopping only warnings, errors and plain text are shown', async (t) => {
  const devConsole = new DevConsole();
  devConsole.stop();
  t.equal(devConsole.format('api-server', line({ level: 30, signal: 'SIGTERM', msg: 'shutting down' })), undefined);
  t.ok(devConsole.format('api-server', line({ level: 50, msg: 'close failed' })));
  t.equal(devConsole.format('kube-lite', 'Error: boom'), '[kube-lite] Error: boom');
  t.equal(devConsole.format('kube-lite', '   '), undefined);
});
