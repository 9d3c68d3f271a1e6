import t from 'tap';
import { describeAccess } from '../dev/access.js';

const ctx = { apiUrl: 'http://127.0.0.1:8081', org: 'dev', clusterId: 'c1', clusterName: 'local', pin: undefined };
const clusterFlag = 'http://127.0.0.1:8081/api/v1/tenants/dev/clusters/c1/feature-flags/cli_access.enabled';
const platformFlag = 'http://127.0.0.1:8081/api/v1/platform/feature-flags/cli_access.enabled';

t.test("stored off for the cluster: the banner says it is the cluster's override and how to clear it", async (t) => {
  const text = describeAccess({ enabled: false, source: 'cluster', envPinned: false }, ctx).join('\n');
  t.match(text, 'kubectl access is OFF for cluster "local": cli_access.enabled is stored false for this cluster');
  t.match(text, `curl -s -w '\\n' -X DELETE ${clusterFlag}`);
  t.notMatch(text, platformFlag);
});

t.test('stored off for the platform: the banner says so, why, until when, and how to clear it', async (t) => {
  const record = {
    actor: null,
    actorRole: 'platform-admin',
    reason: 'incident 42',
    expiresAt: '2026-11-26T11:00:00.000Z',
  };
  const text = describeAccess({ enabled: false, source: 'platform', envPinned: false, record }, ctx).join('\n');
  t.match(
    text,
    'kubectl access is OFF: cli_access.enabled is stored false for the whole platform ("incident 42"), ' +
      'back on by itself at 2026-11-26T11:00:00.000Z',
  );
  t.match(text, `curl -s -w '\\n' -X DELETE ${platformFlag}`);
});

t.test('pinned on: the banner names the pin and offers no command', async (t) => {
  const text = describeAccess({ enabled: true, source: 'env', envPinned: true }, { ...ctx, pin: 'true' }).join('\n');
  t.match(text, 'kubectl access is pinned ON by SERVICE_CLI_ACCESS_ENABLED=true');
  t.notMatch(text, 'curl');
});

t.test('on by default: the banner offers turning it off for an hour with a reason, and back on', async (t) => {
  const now = Date.parse('2026-11-26T10:00:00Z');
  const text = describeAccess({ enabled: true, source: 'default', envPinned: false }, { ...ctx, now }).join('\n');
  t.match(text, 'kubectl access is ON (the built-in default)');
  t.match(text, `curl -s -w '\\n' -X PUT ${platformFlag}`);
  t.match(text, `'{"value":false,"reason":"trying the kill switch","expiresAt":"2026-11-26T11:00:00.000Z"}'`);
  t.match(text, `curl -s -w '\\n' -X DELETE ${platformFlag}`);
});
