import t from 'tap';
import { NotFound } from '../../src/errors.js';
import { ProfileStore, PROFILE_KEY, PROFILE_LABEL } from '../../src/profiles/store.js';
import { until } from '../helper.js';
import { cluster } from '../gameservers/cluster.js';

t.test('a profile whose ConfigMap does not validate is refused with where it is and what is wrong', async (t) => {
  const c = await cluster(t);
  const store = new ProfileStore(c.core, c.watch, 'games', c.log);
  await store.start();
  t.teardown(() => store.stop());
  await c.core.createNamespacedConfigMap({
    namespace: 'games',
    body: {
      metadata: { name: 'gsp-profile-broken', labels: { [PROFILE_LABEL]: 'broken' } },
      data: { [PROFILE_KEY]: 'image: 42\nports: []\n' },
    },
  });
  await until('the invalid profile indexed', () => store.invalid('broken'));
  const refusal = store.refusal('broken');
  t.match(
    refusal.detail,
    new RegExp(
      '^profile broken is not served: ConfigMap gsp-profile-broken in namespace games does not validate: .+\\. ' +
        'Fix it with kubectl, or PUT the profile again$',
    ),
  );
  t.ok(refusal.errors.length > 0);
  t.match(refusal.errors[0], { pointer: String, message: String });
  t.throws(() => store.refusal('none'), new NotFound('profile none not found'));
});
