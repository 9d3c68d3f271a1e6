import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { ActionTimeout, Conflict, NotFound, Unprocessable } from '../errors.js';
import type { CommandRunner } from '../kube/exec.js';
import { isHeld } from '../gameservers/locks.js';
import type { ActionLocks } from '../gameservers/locks.js';
import { PROFILE_LABEL, containerOf, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { claimName } from '../profiles/manifest.js';
import { quantityAmount } from '../profiles/schema.js';
import type { Profile } from '../profiles/types.js';
import { SNAPSHOTS, SnapshotSchema, defaultSnapshotName, snapshotManifest } from './model.js';
import type { VolumeSnapshot } from './model.js';
import type { SnapshotStore } from './store.js';

/** How long each of preCommand and postCommand may run (a save-all of a large world takes seconds, not minutes). */
export const HOOK_TIMEOUT_MS = 60_000;
/** Output kept of a hook's stdout and of its stderr, for the answer. */
const HOOK_OUTPUT_BYTES = 4096;
/** States in which the game server's container runs, so a hook can run in it. */
const RUNNING = ['RequestReady', 'Ready', 'Reserved', 'Allocated'];
/** Longest stderr quoted in an error's detail. */
const EXCERPT = 300;

export const HookRunSchema = Type.Object({
  exitCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null when it did not finish: see error.' }),
  stdout: Type.String({ description: 'The first 4 KiB.' }),
  stderr: Type.String({ description: 'The first 4 KiB.' }),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it did not finish (timeout, the exec stream failed); null when it did.',
  }),
});
export type HookRun = Static<typeof HookRunSchema>;

export const SnapshotCreatedSchema = Type.Object(
  {
    ...SnapshotSchema.properties,
    hooks: Type.Object(
      { preCommand: Type.Union([HookRunSchema, Type.Null()]), postCommand: Type.Union([HookRunSchema, Type.Null()]) },
      { description: "What the profile's snapshot commands did; null for one the profile does not set." },
    ),
  },
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
      `game server ${id} was not created from a profile: it has no storage the control plane knows of, nothing to snapshot`,
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

const excerpt = (text: string): string => {
  const trimmed = text.trim();
  return trimmed.length > EXCERPT ? `${trimmed.slice(0, EXCERPT)}…` : trimmed;
};

/** How a hook ended, in a few words (for details and audit lines). */
function described(hook: string, run: HookRun): string {
  if (run.error !== null) return `${hook} did not finish: ${run.error}`;
  return `${hook} exited with code ${run.exitCode}${run.exitCode !== 0 && run.stderr.trim() !== '' ? ` (${excerpt(run.stderr)})` : ''}`;
}

/** What the snapshot request did, for its audit line: `created <name>`, then any hook that did not exit 0. */
export function snapshotOutcome(created: string | undefined, hooks: SnapshotCreated['hooks']): string {
  const failed = (run: HookRun | null): boolean => run !== null && run.exitCode !== 0;
  const parts = [created !== undefined ? `created ${created}` : 'not created'];
  if (failed(hooks.preCommand))
    parts.push(
      hooks.preCommand?.error !== null ? 'preCommand failed' : `preCommand exit ${hooks.preCommand?.exitCode}`,
    );
  if (failed(hooks.postCommand))
    parts.push(
      hooks.postCommand?.error !== null ? 'postCommand failed' : `postCommand exit ${hooks.postCommand?.exitCode}`,
    );
  return parts.join(', ');
}

/**
 * A snapshot of game server `gs`'s storage, under its action lock (so no restart or other action,
 * and no second snapshot, runs between the hooks): the profile's `preCommand` (a save-and-flush),
 * then the VolumeSnapshot of its data claim, then `postCommand`, which runs whatever happened
 * before (it typically undoes what preCommand did, such as turning saving back on). A preCommand
 * that fails or exits non-zero means the data may not be consistent: no snapshot is taken, and
 * the 409 says why. `onOutcome` hears what happened even when this throws.
 */
export async function takeSnapshot(
  ctx: SnapshotContext,
  gs: AgonesGameServer,
  requestedName: string | undefined,
  onOutcome: (outcome: string) => void,
): Promise<SnapshotCreated> {
  const namespace = gs.metadata?.namespace ?? '';
  const gameServer = gs.metadata?.name ?? '';
  const id = `${namespace}/${gameServer}`;
  const profile = storageProfile(gs, ctx.profile);
  const { preCommand, postCommand } = profile.snapshot ?? {};
  if (gs.metadata?.deletionTimestamp !== undefined)
    throw new Conflict(`game server ${id} is being deleted; its storage goes with it`);
  if ((preCommand !== undefined || postCommand !== undefined) && !RUNNING.includes(stateOf(gs))) {
    throw new Conflict(
      `profile ${profile.name} runs commands around a snapshot, which needs a game server in state ${RUNNING.join(' or ')}; ${id} is ${stateOf(gs)}`,
    );
  }
  ctx.store.requireReady();

  // Both hooks and the create, and then some: the lock outlives the work, and expires if this replica dies.
  const lock = await ctx.locks.acquire(id, 'snapshot', 2 * HOOK_TIMEOUT_MS + 30_000);
  if (!isHeld(lock)) {
    onOutcome('refused: busy');
    const since = lock.startedAt ? ` (since ${lock.startedAt})` : '';
    throw new Conflict(
      `action ${lock.action} is already running on game server ${id}${since}; a snapshot waits for it to end`,
    );
  }
  const target = { namespace, pod: gameServer, container: containerOf(gs) };
  /** Runs a hook; one that could not run or finish is reported in its run, with the error to answer with. */
  const hook = async (argv: string[] | undefined): Promise<{ run: HookRun | null; error?: Error }> => {
    if (argv === undefined) return { run: null };
    const started = performance.now();
    const durationMs = (): number => Math.round(performance.now() - started);
    try {
      const { exitCode, stdout, stderr } = await ctx.exec.run(target, argv, {
        timeoutMs: HOOK_TIMEOUT_MS,
        maxOutputBytes: HOOK_OUTPUT_BYTES,
      });
      return { run: { exitCode, stdout, stderr, durationMs: durationMs(), error: null } };
    } catch (err) {
      // Our own errors (timeout, cluster unreachable): their messages show no internals.
      return {
        run: { exitCode: null, stdout: '', stderr: '', durationMs: durationMs(), error: (err as Error).message },
        error: err as Error,
      };
    }
  };

  const hooks: SnapshotCreated['hooks'] = { preCommand: null, postCommand: null };
  let created: VolumeSnapshot | undefined;
  let failure: Error | undefined;
  try {
    const pre = await hook(preCommand);
    hooks.preCommand = pre.run;
    if (pre.error instanceof ActionTimeout)
      failure = new ActionTimeout(
        `no snapshot was taken: preCommand did not finish within ${HOOK_TIMEOUT_MS / 1000} s`,
      );
    else if (pre.error !== undefined) failure = pre.error;
    // The data may not be consistent: preCommand did not say it is.
    else if (pre.run !== null && pre.run.exitCode !== 0)
      failure = new Conflict(`no snapshot was taken: ${described('preCommand', pre.run)}`);
    else {
      // The moment the data is as preCommand left it: what the default name and "oldest" go by.
      const requestedAt = new Date();
      const name = requestedName ?? defaultSnapshotName(gameServer, requestedAt);
      const manifest = snapshotManifest({
        namespace,
        name,
        gameServer,
        profile: profile.name,
        claim: claimName(gameServer),
        requestedAt,
      });
      try {
        created = await ctx.store.create(manifest);
      } catch (err) {
        failure = err as Error;
      }
    }
    hooks.postCommand = (await hook(postCommand)).run;
  } finally {
    await lock.release();
  }
  onOutcome(snapshotOutcome(created?.metadata?.name, hooks));
  const post = hooks.postCommand;
  if (post !== null && post.exitCode !== 0)
    ctx.log.warn(
      { gameServer: id, snapshot: created?.metadata?.name ?? null },
      `a snapshot's ${described('postCommand', post)}`,
    );
  if (created !== undefined) return { ...(await ctx.store.settled(created)), hooks };
  // The game may be left as preCommand made it: a refusal says how postCommand ended.
  if (failure instanceof Conflict && hooks.preCommand !== null && post !== null)
    throw new Conflict(`${failure.message}; ${described('postCommand', post)}`);
  throw failure;
}

/**
 * Checks that a game server of `profile` can be restored from snapshot `namespace/name`, read
 * from the cluster (a restore must not trust a cache about readiness): it must exist (else 422),
 * be ready to use (else 409), and fit the profile's storage (else 409: the provisioner would never
 * bind a claim smaller than the snapshot). A profile without storage has nothing to restore into.
 */
export async function checkRestorable(
  custom: CustomObjectsApi,
  namespace: string,
  name: string,
  profile: Profile,
): Promise<void> {
  if (profile.storage === undefined)
    throw new Conflict(
      `profile ${profile.name} has no storage: there is nothing to restore snapshot ${namespace}/${name} into`,
    );
  const snapshot = (await custom.getNamespacedCustomObject({ ...SNAPSHOTS, namespace, name }).catch((err: unknown) => {
    throw err instanceof NotFound ? new Unprocessable(`unknown snapshot ${namespace}/${name}`) : err;
  })) as VolumeSnapshot;
  if (snapshot.status?.readyToUse !== true) {
    const why = snapshot.status?.error?.message;
    throw new Conflict(
      `snapshot ${namespace}/${name} is not ready to use${why ? `: ${why}` : ' yet; try again once it is (readyToUse)'}`,
    );
  }
  const needed = snapshot.status.restoreSize;
  if (typeof needed === 'string' && quantityAmount(needed) > quantityAmount(profile.storage.size)) {
    throw new Conflict(
      `snapshot ${namespace}/${name} needs a volume of at least ${needed}; profile ${profile.name}'s storage is ${profile.storage.size}`,
    );
  }
}
