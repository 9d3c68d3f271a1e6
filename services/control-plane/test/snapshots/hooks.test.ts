import t from 'tap';
import { described, snapshotOutcome } from '../../src/snapshots/hooks.js';
import type { HookRun } from '../../src/snapshots/hooks.js';

const run = (exitCode: number | null, stderr = '', error: string | null = null): HookRun => ({
  exitCode,
  stdout: '',
  stderr,
  durationMs: 1,
  error,
});

t.test('a hook is described by its exit code, with its stderr when it failed, cut at 300 characters', async (t) => {
  t.equal(described('preCommand', run(0, 'noise')), 'preCommand exited with code 0');
  t.equal(described('preCommand', run(2, ' disk full \n')), 'preCommand exited with code 2 (disk full)');
  t.equal(described('postCommand', run(null, '', 'timed out')), 'postCommand did not finish: timed out');
  const long = described('preCommand', run(1, 'x'.repeat(400)));
  t.equal(long, `preCommand exited with code 1 (${'x'.repeat(300)}…)`);
});

t.test('the audit outcome names the snapshot, then each hook that did not exit 0', async (t) => {
  t.equal(snapshotOutcome('s1', { preCommand: null, postCommand: null }), 'created s1');
  t.equal(snapshotOutcome('s1', { preCommand: run(0), postCommand: run(3) }), 'created s1, postCommand exit 3');
  t.equal(
    snapshotOutcome(undefined, { preCommand: run(null, '', 'timed out'), postCommand: run(0) }),
    'not created, preCommand failed',
  );
});
