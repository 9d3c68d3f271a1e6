import t from 'tap';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

const FLAG = 'cli_access.enabled';
type Tri = 'unset' | true | false;
const states: Tri[] = ['unset', true, false];

// Each env pin value needs its own process configuration, so one app per pin.
for (const pin of states) {
  t.test(`with SERVICE_CLI_ACCESS_ENABLED ${pin === 'unset' ? 'unset' : `=${pin}`}`, async (t) => {
    const { app } = await build(t, { SERVICE_CLI_ACCESS_ENABLED: pin === 'unset' ? undefined : String(pin) });
    const admin = await bearer(PLATFORM_ADMIN);
    await seedTenant(app, 'acme', { alice: 'operator' });
    const cluster = await registerCluster(app, 'acme', 'prod');
    const clusterUrl = `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`;
    const platformUrl = `/api/v1/platform/feature-flags/${FLAG}`;

    for (const clusterValue of states) {
      for (const platformValue of states) {
        const name = `cluster override ${clusterValue}, platform default ${platformValue}`;
        const set = async (url: string, value: Tri) =>
          value === 'unset'
            ? app.inject({ method: 'DELETE', url, headers: admin })
            : app.inject({ method: 'PUT', url, headers: admin, payload: { value } });
        t.equal((await set(platformUrl, platformValue)).statusCode, 200);
        const write = await set(clusterUrl, clusterValue);
        t.equal(write.statusCode, 200, name);

        const expected =
          pin !== 'unset'
            ? { effective: pin, source: 'env' }
            : clusterValue !== 'unset'
              ? { effective: clusterValue, source: 'cluster' }
              : platformValue !== 'unset'
                ? { effective: platformValue, source: 'platform' }
                : { effective: true, source: 'default' };
        const envPinned = pin !== 'unset';

        const body = write.json();
        t.match(
          body,
          {
            key: FLAG,
            scope: { type: 'cluster', org: 'acme', clusterId: cluster.id },
            value: clusterValue === 'unset' ? null : clusterValue,
            ...expected,
            envPinned,
          },
          `write answer: ${name}`,
        );

        const list = await app.inject({
          url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags`,
          headers: await bearer('alice'),
        });
        t.equal(list.statusCode, 200);
        const item = list.json().flags.find((f: { key: string }) => f.key === FLAG);
        t.match(
          item,
          {
            key: FLAG,
            value: expected.effective,
            platformDefault: platformValue === 'unset' ? null : platformValue,
            clusterOverride: clusterValue === 'unset' ? null : clusterValue,
            source: expected.source,
            envPinned,
          },
          `cluster read: ${name}`,
        );
      }
    }
  });
}

t.test('the platform list shows the platform-level value, which ignores cluster overrides', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  const read = async () =>
    (await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer('anyone') })).json().flags[0];
  t.match(await read(), { key: FLAG, value: true, platformDefault: null, source: 'default', envPinned: false });
  await app.inject({
    method: 'PUT',
    url: `/api/v1/platform/feature-flags/${FLAG}`,
    headers: admin,
    payload: { value: false },
  });
  t.match(await read(), { key: FLAG, value: false, platformDefault: false, source: 'platform', envPinned: false });
});
