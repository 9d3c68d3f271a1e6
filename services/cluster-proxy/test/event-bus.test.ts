import t from 'tap';
import { busesConstructed, LocalEventBus, RedisEventBus } from '@gsp/events';
import { ACCESS_CHANGED_EVENT } from '@gsp/platform-contract';
import type { AccessChange, AccessEvent } from '@gsp/platform-contract';
import { waitUntil } from '@gsp/service-kit';
import { loadConfig } from '../src/config.js';
import { buildClusterProxy } from '../src/proxy/proxy.js';
import { redisPrefix, TEST_REDIS_URL } from './stack.js';

// Nothing here is served: building the proxy reaches neither its database nor the API server.
const BASE = {
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  API_SERVER_URL: 'http://127.0.0.1:1',
  PORT: '0',
  TUNNEL_PORT: '0',
  METRICS_PORT: '0',
};

for (const [kind, env, type] of [
  ['Redis', { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() }, RedisEventBus],
  ['no Redis', {}, LocalEventBus],
] as const) {
  t.test(`building the proxy builds exactly one event bus, which the rights cache listens on (${kind})`, async (t) => {
    const before = busesConstructed();
    const proxy = await buildClusterProxy(loadConfig({ ...BASE, ...env }), false);
    t.teardown(() => proxy.close());
    t.equal(busesConstructed() - before, 1, 'the flags client and the revocation watch share one');
    t.type(proxy.events, type);

    const forgotten: AccessChange[] = [];
    proxy.rights.forget = (event) => void forgotten.push(event);
    await proxy.events.ready();
    const change: AccessEvent = { kind: 'cluster-deleted', org: 'acme', clusterId: 'c1', actor: 'someone' };
    await proxy.events.publish(ACCESS_CHANGED_EVENT, change);
    await waitUntil(() => forgotten.length > 0, {
      timeoutMs: 5000,
      intervalMs: 5,
      what: 'the rights cache to hear it',
    });
    t.match(forgotten, [change]);
  });
}
