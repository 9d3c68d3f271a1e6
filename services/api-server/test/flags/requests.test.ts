import t from 'tap';
import { CLI_ACCESS_ENABLED } from '@gsp/flags-client';
import { build, PLATFORM_ADMIN, registerCluster, seedTenant } from '../helper.js';
import { FlagRequests } from '../../src/flags/requests.js';

const bearerCall = { consoleSession: false, confirmation: undefined };

type Tap = { teardown(fn: () => unknown): void };

async function setUp(t: Tap) {
  const { app } = await build(t);
  return { app, requests: new FlagRequests(app.pg, app.flags, 'default') };
}

t.test("switching the kill switch off platform-wide from the console needs the platform's id typed", async (t) => {
  const { requests } = await setUp(t);
  const off = { value: false };
  const viaConsole = (confirmation: string | undefined) => ({ consoleSession: true, confirmation });
  await t.rejects(requests.setPlatform(PLATFORM_ADMIN, CLI_ACCESS_ENABLED, off, viaConsole(undefined), 'r1'), {
    statusCode: 403,
    message: /X-GSP-Confirm: default/,
  });
  await t.rejects(requests.setPlatform(PLATFORM_ADMIN, CLI_ACCESS_ENABLED, off, viaConsole('other'), 'r2'), {
    statusCode: 403,
    message: /X-GSP-Confirm: default/,
  });
  const confirmed = await requests.setPlatform(PLATFORM_ADMIN, CLI_ACCESS_ENABLED, off, viaConsole('default'), 'r3');
  t.equal(confirmed.effective, false);
  const on = await requests.setPlatform(
    PLATFORM_ADMIN,
    CLI_ACCESS_ENABLED,
    { value: true },
    viaConsole(undefined),
    'r4',
  );
  t.equal(on.effective, true, 'switching it on needs no confirmation');
  const bearer = await requests.setPlatform(PLATFORM_ADMIN, CLI_ACCESS_ENABLED, off, bearerCall, 'r5');
  t.equal(bearer.effective, false, 'a bearer call needs none either, as the specification says');
});

t.test('an unknown flag is a 404 before its record is checked', async (t) => {
  const { requests } = await setUp(t);
  await t.rejects(requests.setPlatform(PLATFORM_ADMIN, 'no.such.flag', { value: true, reason: '' }, bearerCall, 'r'), {
    statusCode: 404,
    message: 'unknown feature flag no.such.flag',
  });
});

t.test('a bad reason and a bad expiry are refused together, each named', async (t) => {
  const { requests } = await setUp(t);
  const body = { value: false, reason: ' ', expiresAt: 'tomorrow' };
  const refused = await requests.setPlatform(PLATFORM_ADMIN, CLI_ACCESS_ENABLED, body, bearerCall, 'r').then(
    () => undefined,
    (err: { errors?: { pointer: string }[] }) => err,
  );
  t.same(
    refused?.errors?.map((e) => e.pointer),
    ['#/reason', '#/expiresAt'],
  );
});

t.test("a cluster write keeps the writer's tenant role, or platform-admin for a platform admin", async (t) => {
  const { app, requests } = await setUp(t);
  await seedTenant(app, 'acme', { alice: 'operator' });
  const { id } = await registerCluster(app, 'acme', 'prod');
  const at = { org: 'acme', id, flag: CLI_ACCESS_ENABLED };
  const byAlice = await requests.setCluster('alice', at, { value: false }, 'r1');
  t.equal(byAlice.clusterRecord?.actorRole, 'operator');
  const byAdmin = await requests.setCluster(PLATFORM_ADMIN, at, { value: true }, 'r2');
  t.equal(byAdmin.clusterRecord?.actorRole, 'platform-admin');
  await t.rejects(requests.clearCluster('mallory', at, 'r3'), {
    statusCode: 403,
    message: 'this requires a role in the tenant',
  });
  await t.rejects(requests.clearCluster('alice', { ...at, id: 'no-such-cluster' }, 'r4'), {
    statusCode: 404,
    message: /no-such-cluster/,
  });
});
