/** What a server's page says without a browser: ages, durations, and which actions can run now and why not. */
import t from 'tap';
import { whyActionCannot, whySnapshotCannot } from '../src/features/server/can-run.js';
import type { ProfileState } from '../src/features/server/can-run.js';
import { rowsFor } from '../src/features/server/args-field.js';
import type { GameServerView, ProfileSummary } from '../src/features/server/types.js';
import { formatAge, formatDuration } from '../src/lib/time.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

t.test('every age is written one way: the largest whole unit, with a space', async (t) => {
  t.equal(formatAge(ago(4_000), NOW), 'under 1 min');
  t.equal(formatAge(ago(6 * 60_000 + 59_000), NOW), '6 min');
  t.equal(formatAge(ago(3 * 3_600_000 + 5 * 60_000), NOW), '3 h');
  t.equal(formatAge(ago(2 * 86_400_000 + 1), NOW), '2 d');
  t.equal(formatAge(ago(-5_000), NOW), 'under 1 min', 'a clock a little ahead is no negative age');
  t.equal(formatAge('not a date', NOW), 'unknown');
});

t.test('a quick command is not said to take "0.0 s"', async (t) => {
  t.equal(formatDuration(0), 'less than 1 ms');
  t.equal(formatDuration(37), '37 ms');
  t.equal(formatDuration(999.6), '1000 ms');
  t.equal(formatDuration(1_049), '1.0 s');
  t.equal(formatDuration(12_345), '12.3 s');
  t.equal(formatDuration(125_000), '2 min 5 s');
});

t.test('the arguments field has a row for each line and one more, so no line is hidden', async (t) => {
  t.equal(rowsFor(''), 2);
  t.equal(rowsFor('one\ntwo\nthree'), 4);
  t.equal(rowsFor('x\n'.repeat(50)), 10, 'up to ten, then it scrolls');
});

const server = (state: string, profile: string | null = 'world'): GameServerView => ({
  namespace: 'games',
  name: 'world-1',
  profile,
  state,
  address: null,
  ports: [],
  labels: {},
  players: null,
  createdAt: ago(0),
});
const loaded = (profile: Partial<ProfileSummary>): ProfileState => ({
  state: 'done',
  profile: { name: 'world', actions: {}, ...profile },
});
const STORAGE = { storage: { size: '1Gi', mountPath: '/data' } };

t.test('allocate and reserve can run on a Ready server only, and say why not otherwise', async (t) => {
  const none = loaded({});
  t.equal(whyActionCannot('allocate', server('Ready'), none), undefined);
  t.equal(
    whyActionCannot('allocate', server('Allocated'), none),
    'Only a Ready game server can be allocated; it is Allocated.',
  );
  t.equal(
    whyActionCannot('reserve', server('Reserved'), none),
    'Only a Ready game server can be reserved; it is Reserved.',
  );
  t.equal(whyActionCannot('shutdown', server('Allocated'), none), undefined, 'shutdown: any state but Shutdown');
  t.equal(whyActionCannot('shutdown', server('Shutdown'), none), 'It is shut down already.');
});

t.test('a state the control plane does not know (a newer Agones) is refused as it refuses it', async (t) => {
  const none = loaded({});
  t.equal(
    whyActionCannot('shutdown', server('Paused'), none),
    'Shutting it down needs the state Creating, Scheduled, RequestReady, Ready, Reserved, Allocated, ' +
      'Unhealthy or Error; it is Paused.',
  );
  t.match(
    whyActionCannot('greet', server('Paused'), none),
    /needs the state RequestReady, Ready, Reserved or Allocated;/,
  );
});

t.test(
  "restart needs the profile's restart command and a running server; a profile action, a running server",
  async (t) => {
    t.match(whyActionCannot('restart', server('Ready'), loaded({})), /^Its profile world sets no restart command/);
    t.equal(whyActionCannot('restart', server('Ready'), loaded({ restartCommand: ['kill', '1'] })), undefined);
    t.match(whyActionCannot('restart', server('Ready', null), { state: 'none' }), /not created from a profile/);
    t.match(whyActionCannot('restart', server('Ready'), { state: 'loading' }), /^Reading its profile world/);
    t.match(
      whyActionCannot('greet', server('Scheduled'), loaded({})),
      /needs the state RequestReady.*; it is Scheduled\.$/,
    );
    t.equal(whyActionCannot('greet', server('Allocated'), loaded({})), undefined);
  },
);

t.test(
  'a snapshot needs a profile with storage, and a running server when the profile runs commands around it',
  async (t) => {
    t.equal(
      whySnapshotCannot(server('Ready'), loaded({})),
      'Its profile world has no storage: there is nothing to snapshot.',
    );
    t.equal(whySnapshotCannot(server('Scheduled'), loaded(STORAGE)), undefined, 'no commands: any state');
    const hooks = loaded({ ...STORAGE, snapshot: { preCommand: ['sync'] } });
    t.equal(whySnapshotCannot(server('Allocated'), hooks), undefined);
    t.match(whySnapshotCannot(server('Scheduled'), hooks), /snapshot command runs in the game server's container/);
    t.match(
      whySnapshotCannot(server('Ready', null), { state: 'none' }),
      /not created from a profile, so it has no storage/,
    );
    t.match(
      whySnapshotCannot(server('Ready'), { state: 'error', message: 'Profile world not found.' }),
      /^Its profile world cannot be read, so its storage is unknown: Profile world not found\.$/,
    );
  },
);
