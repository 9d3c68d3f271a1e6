import t from 'tap';
import { ConfigError } from '@gsp/service-kit';
import { loadConfig } from '../src/config.js';

const BASE = { DATABASE_URL: 'postgres://proxy@db:5432/gsp', API_SERVER_URL: 'http://api:8081' };

t.test('TUNNEL_WAIT and DRAIN_GRACE: documented defaults, durations, 0 allowed', async (t) => {
  const config = loadConfig(BASE);
  t.equal(config.tunnelWaitMs, 5000, 'a request waits 5 s for a tunnel');
  t.equal(config.drainGraceMs, 25_000, 'a drain lasts at most 25 s');
  const set = loadConfig({ ...BASE, TUNNEL_WAIT: '0', DRAIN_GRACE: '2m' });
  t.equal(set.tunnelWaitMs, 0);
  t.equal(set.drainGraceMs, 120_000);
  for (const variable of ['TUNNEL_WAIT', 'DRAIN_GRACE']) {
    t.throws(() => loadConfig({ ...BASE, [variable]: 'soon' }), ConfigError, `${variable} must be a duration`);
    t.throws(() => loadConfig({ ...BASE, [variable]: 'soon' }), { message: new RegExp(`^${variable}`) });
  }
});
