import t from 'tap';
import type { AuditDetails } from '../../src/audit-target.js';
import { ActionTimeout, Conflict } from '../../src/errors.js';
import { GameServerCreation } from '../../src/gameservers/create.js';
import { ActionLocks } from '../../src/gameservers/locks.js';
import { ActionRunner } from '../../src/actions/run.js';
import { cachedIn, cluster, profile } from '../gameservers/cluster.js';

const ARENA = profile('arena', {
  actions: {
    ok: { command: ['true'], timeoutSeconds: 5 },
    slow: { command: ['sleep', '30'], timeoutSeconds: 1 },
  },
});

async function setUp(t: Parameters<typeof cluster>[0]) {
  const c = await cluster(t);
  const profiles = { get: (name: string) => (name === 'arena' ? ARENA : undefined), invalid: () => undefined };
  await new GameServerCreation({ ...c, profiles }).create(
    'games',
    { profile: 'arena', name: 'one' },
    {
      audit: () => undefined,
      log: c.log,
    },
  );
  const gs = await cachedIn(c, 'one', 'Ready');
  const locks = new ActionLocks(undefined);
  const runner = new ActionRunner({ ...c, profile: profiles.get }, locks);
  const audits: AuditDetails[] = [];
  const audit = (details: AuditDetails) => audits.push(details);
  return { gs, locks, runner, audits, audit };
}

t.test('an action runs under the lock, which it releases, and the audit hears its outcome', async (t) => {
  const { gs, locks, runner, audits, audit } = await setUp(t);
  t.match(await runner.run(gs, 'ok', [], { mayDelete: false }, audit), { exitCode: 0 });
  t.same(audits, [{ outcome: 'exit 0' }]);
  const again = await locks.acquire('games/one', 'other', 1000);
  t.ok('release' in again, 'the lock was released');
});

t.test('a second action while one runs is 409 naming it, and audited as refused', async (t) => {
  const { gs, locks, runner, audits, audit } = await setUp(t);
  await locks.acquire('games/one', 'snapshot', 10_000);
  await t.rejects(runner.run(gs, 'ok', [], { mayDelete: false }, audit), Conflict);
  await t.rejects(runner.run(gs, 'ok', [], { mayDelete: false }, audit), /action snapshot is already running/);
  t.same(audits[0], { outcome: 'refused: busy' });
});

t.test('a command past its timeout is 504, audited as timeout', async (t) => {
  const { gs, runner, audits, audit } = await setUp(t);
  await t.rejects(runner.run(gs, 'slow', [], { mayDelete: false }, audit), ActionTimeout);
  t.same(audits, [{ outcome: 'timeout' }]);
});
