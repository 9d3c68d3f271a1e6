import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditDetails } from '../audit-target.js';
import { RUNNING_STATES, isRunning } from '../contract.js';
import { ActionTimeout, Conflict } from '../errors.js';
import type { CommandRunner, ExecTarget } from '../kube/exec.js';
import { isHeld } from '../gameservers/locks.js';
import type { ActionLocks, HeldLock } from '../gameservers/locks.js';
import { PROFILE_LABEL, containerOf, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { claimName } from '../profiles/manifest.js';
import type { Profile } from '../profiles/types.js';
import { HOOK_TIMEOUT_MS, HooksSchema, described, runHook, snapshotOutcome } from './hooks.js';
import type { Hooks } from './hooks.js';
import { SnapshotSchema, defaultSnapshotName, snapshotManifest } from './model.js';
import type { VolumeSnapshot } from '../kube/volume-snapshots.js';
import type { SnapshotStore } from './store.js';

export { HOOK_TIMEOUT_MS, HookRunSchema, snapshotOutcome } from './hooks.js';
export type { HookRun } from './hooks.js';

export const SnapshotCreatedSchema = Type.Object(
  { ...SnapshotSchema.properties, hooks: HooksSchema },
  {
    additionalProperties: false,
    description: 'The snapshot as asked for: readyToUse turns true once the snapshotter has cut it.',
  },
);
export type SnapshotCreated = Static<typeof SnapshotCreatedSchema>;

export interface SnapshotContext {
  exec: CommandRunner;
  locks: ActionLocks;
  store: SnapshotStore;
  profile: (name: string) => Profile | undefined;
  log: FastifyBaseLogger;
}

/** The profile of `gs`, when it has storage to snapshot; 409 saying why not otherwise. */
export function storageProfile(gs: AgonesGameServer, profileOf: (name: string) => Profile | undefined): Profile {
  const id = `${gs.metadata?.namespace ?? ''}/${gs.metadata?.name ?? ''}`;
  const profileName = gs.metadata?.labels?.[PROFILE_LABEL];
  if (profileName === undefined) {
    throw new Conflict(
      `game server ${id} was not created from a profile: ` +
        'it has no storage the control plane knows of, nothing to snapshot',
    );
  }
  const profile = profileOf(profileName);
  if (profile === undefined)
    throw new Conflict(
      `the profile of game server ${id}, ${profileName}, is missing or invalid: its storage is unknown`,
    );
  if (profile.storage === undefined) throw new Conflict(`profile ${profileName} has no storage: nothing to snapshot`);
  return profile;
}

/** The game server a snapshot is taken of, checked, and where its hooks run. */
interface Subject {
  namespace: string;
  gameServer: string;
  id: string;
  profile: Profile;
  target: ExecTarget;
}

/** What happened under the lock: the hooks' runs, the snapshot if one was made, and why not if not. */
interface Taken {
  hooks: Hooks;
  created?: VolumeSnapshot;
  failure?: Error;
}

/**
 * 409 unless `gs` can be snapshotted now (storage, not being deleted, running if hooks must run); 503 before the first
 * list.
 */
function subjectOf(ctx: SnapshotContext, gs: AgonesGameServer): Subject {
  const namespace = gs.metadata?.namespace ?? '';
  const gameServer = gs.metadata?.name ?? '';
  const id = `${namespace}/${gameServer}`;
  const profile = storageProfile(gs, ctx.profile);
  const { preCommand, postCommand } = profile.snapshot ?? {};
  if (gs.metadata?.deletionTimestamp !== undefined)
    throw new Conflict(`game server ${id} is being deleted; its storage goes with it`);
  if ((preCommand !== undefined || postCommand !== undefined) && !isRunning(stateOf(gs))) {
    throw new Conflict(
      `profile ${profile.name} runs commands around a snapshot, ` +
        `which needs a game server in state ${RUNNING_STATES.join(' or ')}; ${id} is ${stateOf(gs)}`,
    );
  }
  ctx.store.requireReady();
  return { namespace, gameServer, id, profile, target: { namespace, pod: gameServer, container: containerOf(gs) } };
}

/** The server's action lock, for both hooks and the create (and then some); 409 when another action holds it. */
async function lockFor(ctx: SnapshotContext, id: string, audit: (details: AuditDetails) => void): Promise<HeldLock> {
  // The lock outlives the work, and expires if this replica dies.
  const lock = await ctx.locks.acquire(id, 'snapshot', 2 * HOOK_TIMEOUT_MS + 30_000);
  if (isHeld(lock)) return lock;
  audit({ outcome: 'refused: busy' });
  const since = lock.startedAt ? ` (since ${lock.startedAt})` : '';
  throw new Conflict(
    `action ${lock.action} is already running on game server ${id}${since}; a snapshot waits for it to end`,
  );
}

/** Creates the VolumeSnapshot of the server's data claim, named for the moment the data is as preCommand left it. */
async function cut(ctx: SnapshotContext, subject: Subject, requestedName: string | undefined): Promise<VolumeSnapshot> {
  const { namespace, gameServer, profile } = subject;
  // What the default name and "oldest" go by.
  const requestedAt = new Date();
  const name = requestedName ?? defaultSnapshotName(gameServer, requestedAt);
  const claim = claimName(gameServer);
  return ctx.store.create(snapshotManifest({ namespace, name, gameServer, profile: profile.name, claim, requestedAt }));
}

/** preCommand, the snapshot when preCommand said the data is consistent, then postCommand whatever happened. */
async function hooksAround(ctx: SnapshotContext, subject: Subject, requestedName: string | undefined): Promise<Taken> {
  const { preCommand, postCommand } = subject.profile.snapshot ?? {};
  const taken: Taken = { hooks: { preCommand: null, postCommand: null } };
  const pre = await runHook(ctx.exec, subject.target, preCommand);
  taken.hooks.preCommand = pre.run;
  if (pre.error instanceof ActionTimeout)
    taken.failure = new ActionTimeout(
      `no snapshot was taken: preCommand did not finish within ${HOOK_TIMEOUT_MS / 1000} s`,
    );
  else if (pre.error !== undefined) taken.failure = pre.error;
  else if (pre.run !== null && pre.run.exitCode !== 0)
    taken.failure = new Conflict(`no snapshot was taken: ${described('preCommand', pre.run)}`);
  else {
    try {
      taken.created = await cut(ctx, subject, requestedName);
    } catch (err) {
      taken.failure = err as Error;
    }
  }
  taken.hooks.postCommand = (await runHook(ctx.exec, subject.target, postCommand)).run;
  return taken;
}

/** The answer: the snapshot once the cache shows it, or the failure, saying how postCommand ended after a refusal. */
async function answer(
  ctx: SnapshotContext,
  subject: Subject,
  { hooks, created, failure }: Taken,
): Promise<SnapshotCreated> {
  const post = hooks.postCommand;
  if (post !== null && post.exitCode !== 0)
    ctx.log.warn(
      { gameServer: subject.id, snapshot: created?.metadata?.name ?? null },
      `a snapshot's ${described('postCommand', post)}`,
    );
  if (created !== undefined) return { ...(await ctx.store.settled(created)), hooks };
  // The game may be left as preCommand made it: a refusal says how postCommand ended.
  if (failure instanceof Conflict && hooks.preCommand !== null && post !== null)
    throw new Conflict(`${failure.message}; ${described('postCommand', post)}`);
  throw failure;
}

/**
 * A snapshot of game server `gs`'s storage, under its action lock (so no restart or other action,
 * and no second snapshot, runs between the hooks): the profile's `preCommand` (a save-and-flush),
 * then the VolumeSnapshot of its data claim, then `postCommand`, which runs whatever happened
 * before (it typically undoes what preCommand did, such as turning saving back on). A preCommand
 * that fails or exits non-zero means the data may not be consistent: no snapshot is taken, and
 * the 409 says why. `audit` hears the outcome even when this throws.
 */
export async function takeSnapshot(
  ctx: SnapshotContext,
  gs: AgonesGameServer,
  requestedName: string | undefined,
  audit: (details: AuditDetails) => void,
): Promise<SnapshotCreated> {
  const subject = subjectOf(ctx, gs);
  const lock = await lockFor(ctx, subject.id, audit);
  let taken: Taken;
  try {
    taken = await hooksAround(ctx, subject, requestedName);
  } finally {
    await lock.release();
  }
  audit({ outcome: snapshotOutcome(taken.created?.metadata?.name, taken.hooks) });
  return answer(ctx, subject, taken);
}
