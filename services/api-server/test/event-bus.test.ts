import t from 'tap';
import { busesConstructed, LocalEventBus, RedisEventBus } from '@gsp/events';
import { FLAG_UPDATED_EVENT, isFlagEvent } from '@gsp/platform-contract';
import type { FlagEvent } from '@gsp/platform-contract';
import { waitUntil } from '@gsp/service-kit';
import { bearer, build, PLATFORM_ADMIN, redisPrefix, TEST_REDIS_URL } from './helper.js';

const flagUrl = '/api/v1/platform/feature-flags/cli_access.enabled';

for (const [kind, env, type] of [
  ['Redis', { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() }, RedisEventBus],
  ['no Redis', {}, LocalEventBus],
] as const) {
  t.test(`booting the API server builds exactly one event bus (${kind})`, async (t) => {
    const before = busesConstructed();
    const { app } = await build(t, env);
    t.equal(busesConstructed() - before, 1, 'the relay, the flags client and the event feed share one');
    t.type(app.events, type);
  });
}

t.test('a flag write is relayed on the bus the flags client listens on', async (t) => {
  const { app } = await build(t, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() });
  const heard: FlagEvent[] = [];
  app.events.subscribe(FLAG_UPDATED_EVENT, { event: (e) => void (isFlagEvent(e) && heard.push(e)) });
  t.equal((await app.flagsClient.cliAccess({})).value, true);
  const res = await app.inject({
    method: 'PUT',
    url: flagUrl,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: false },
  });
  t.equal(res.statusCode, 200);
  await waitUntil(() => heard.length > 0, { timeoutMs: 5000, intervalMs: 5, what: 'the relayed event' });
  t.match(heard[0], { flag: 'cli_access.enabled', value: false, scope: { type: 'platform' } });
  t.equal((await app.flagsClient.cliAccess({})).value, false);
});
