import { randomBytes } from 'node:crypto';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { parseDuration } from '@gsp/service-kit';
import { BadRequest, Conflict, Forbidden, NotFound } from '../errors.js';
import type { CommandRunner, CommandResult } from '../kube/exec.js';
import type { Informer } from '../kube/informer.js';
import type { Profile } from '../profiles/types.js';
import { BUILT_IN_ACTIONS } from '../profiles/types.js';
import type { BuiltInAction } from '../profiles/types.js';
import { claimName } from '../profiles/manifest.js';
import { AGONES, PROFILE_LABEL, STATES, containerOf, gameServerView, stateOf } from './model.js';
import type { AgonesGameServer, GameServer } from './model.js';

/** Output kept of a command's stdout and of its stderr; the rest is dropped and `truncated` set. */
export const MAX_OUTPUT_BYTES = 64 * 1024;
/** Longest reservation: Agones takes seconds as an int32, but a day is the most a panel needs. */
const MAX_RESERVE_MS = 24 * 3_600_000;
/** How long a state change waits to be seen by the watch before it is answered from the write. */
const SETTLE_MS = 2000;
/** Built-in actions that change the Agones state need no command, so are bounded by the Kubernetes timeout. */
const BUILT_IN_TIMEOUT_MS = 30_000;
const ALLOCATION_LABEL = 'gsp.dev/allocation';

/** States in which the game server's container runs, so a command can be run in it. */
const RUNNING = ['RequestReady', 'Ready', 'Reserved', 'Allocated'];

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type ActionResult = { action: string; gameServer: GameServer } | ({ action: string } & CommandResult);

export interface ActionContext {
  custom: CustomObjectsApi;
  exec: CommandRunner;
  gameServers: Informer<AgonesGameServer>;
  profile: (name: string) => Profile | undefined;
}

/** Who asks, as far as an action's rules depend on it. */
export interface ActionCaller {
  /** Whether the caller may delete game servers in the server's namespace (DELETING_SHUTDOWN). */
  mayDelete: boolean;
}

/** What running an action needs: how long it may take (for the lock) and the run itself. */
export interface PlannedAction {
  name: string;
  timeoutMs: number;
  run: () => Promise<ActionResult>;
  /** A word or two for the audit line, from the result. */
  outcome: (result: ActionResult) => string;
}

function isBuiltIn(name: string): name is BuiltInAction {
  return (BUILT_IN_ACTIONS as readonly string[]).includes(name);
}

/** A game server shuts down from any state but Shutdown itself. */
const SHUTDOWN_FROM = STATES.filter((state) => state !== 'Shutdown');

function requireState(gs: AgonesGameServer, action: string, allowed: readonly string[]): void {
  const state = stateOf(gs);
  if (gs.metadata?.deletionTimestamp !== undefined)
    throw new Conflict(`game server ${nameOf(gs)} is being deleted (state ${state}); ${action} is not possible`);
  if (!allowed.includes(state))
    throw new Conflict(`${action} needs a game server in state ${allowed.join(' or ')}; ${nameOf(gs)} is ${state}`);
}

function nameOf(gs: AgonesGameServer): string {
  return `${gs.metadata?.namespace ?? ''}/${gs.metadata?.name ?? ''}`;
}

/** The data claim `<name>-data` the server mounts (made from a profile with storage), if any. */
function dataClaimOf(gs: AgonesGameServer): string | undefined {
  const claim = claimName(gs.metadata?.name ?? '');
  const volumes = (gs.spec?.template?.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] })
    ?.volumes;
  return volumes?.some((v) => v.persistentVolumeClaim?.claimName === claim) ? claim : undefined;
}

function noArgs(action: string, args: readonly string[]): void {
  if (args.length > 0) throw new BadRequest(`action ${action} takes no args`);
}

const commandOutcome = (result: ActionResult): string =>
  'exitCode' in result ? `exit ${result.exitCode}` : result.gameServer.state;

/**
 * Resolves `action` for `gs`: a built-in one (Agones semantics, README "Actions") or a command
 * its profile defines. Unknown: 404; not possible in the server's state: 409; bad args: 400.
 * Nothing is changed until `run` is called (under the game server's action lock).
 */
export function planAction(
  ctx: ActionContext,
  gs: AgonesGameServer,
  action: string,
  args: readonly string[],
  caller: ActionCaller,
): PlannedAction {
  const namespace = gs.metadata?.namespace ?? '';
  const name = gs.metadata?.name ?? '';
  const profileName = gs.metadata?.labels?.[PROFILE_LABEL];
  const profile = profileName === undefined ? undefined : ctx.profile(profileName);

  const settle = async (written: AgonesGameServer, state: string): Promise<ActionResult> => {
    await ctx.gameServers.waitFor(
      namespace,
      name,
      (o) =>
        o === undefined || stateOf(o) === state || o.metadata?.resourceVersion === written.metadata?.resourceVersion,
      SETTLE_MS,
    );
    const seen = ctx.gameServers.get(namespace, name);
    return { action, gameServer: gameServerView(seen !== undefined && stateOf(seen) === state ? seen : written) };
  };
  /** The server as the cluster has it now, checked again: the cache may trail a change just made. */
  const current = async (allowed: readonly string[]): Promise<AgonesGameServer> => {
    const fresh = (await ctx.custom.getNamespacedCustomObject({
      ...AGONES,
      namespace,
      plural: 'gameservers',
      name,
    })) as AgonesGameServer;
    requireState(fresh, action, allowed);
    return fresh;
  };
  const setState = async (
    allowed: readonly string[],
    state: string,
    extra: Record<string, unknown> = {},
    check: (fresh: AgonesGameServer) => void = () => undefined,
  ): Promise<ActionResult> => {
    const fresh = await current(allowed);
    check(fresh);
    // The resourceVersion makes the write conditional: a server that changed since it was read gets 409.
    const body = { metadata: { resourceVersion: fresh.metadata?.resourceVersion }, status: { state, ...extra } };
    const written = (await ctx.custom.patchNamespacedCustomObject(
      { ...AGONES, namespace, plural: 'gameservers', name, body },
      mergePatch,
    )) as AgonesGameServer;
    return settle(written, state);
  };
  const command = (argv: readonly string[], timeoutMs: number) => async (): Promise<ActionResult> => ({
    action,
    ...(await ctx.exec.run({ namespace, pod: name, container: containerOf(gs) }, argv, {
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    })),
  });

  if (isBuiltIn(action)) {
    switch (action) {
      case 'allocate': {
        noArgs(action, args);
        requireState(gs, action, ['Ready']);
        return {
          name: action,
          timeoutMs: BUILT_IN_TIMEOUT_MS,
          outcome: commandOutcome,
          run: async () => {
            // A GameServerAllocation can only pick this server: it alone carries this label value.
            const fresh = await current(['Ready']);
            const token = randomBytes(8).toString('hex');
            const labelled = {
              metadata: { resourceVersion: fresh.metadata?.resourceVersion, labels: { [ALLOCATION_LABEL]: token } },
            };
            await ctx.custom.patchNamespacedCustomObject(
              { ...AGONES, namespace, plural: 'gameservers', name, body: labelled },
              mergePatch,
            );
            const allocation = (await ctx.custom.createNamespacedCustomObject({
              group: 'allocation.agones.dev',
              version: 'v1',
              namespace,
              plural: 'gameserverallocations',
              body: {
                apiVersion: 'allocation.agones.dev/v1',
                kind: 'GameServerAllocation',
                spec: { selectors: [{ matchLabels: { [ALLOCATION_LABEL]: token }, gameServerState: 'Ready' }] },
              },
            })) as { status?: { state?: string } };
            if (allocation.status?.state !== 'Allocated') {
              const now = ctx.gameServers.get(namespace, name);
              throw new Conflict(
                `Agones did not allocate ${namespace}/${name} (${allocation.status?.state ?? 'no answer'}); it is ${now ? stateOf(now) : 'gone'}`,
              );
            }
            const seen = await ctx.gameServers.waitFor(
              namespace,
              name,
              (o) => o === undefined || stateOf(o) === 'Allocated',
              SETTLE_MS,
            );
            const cached = ctx.gameServers.get(namespace, name);
            if (!seen || cached === undefined)
              return { action, gameServer: { ...gameServerView(fresh), state: 'Allocated' } };
            return { action, gameServer: gameServerView(cached) };
          },
        };
      }
      case 'reserve': {
        if (args.length !== 1)
          throw new BadRequest(
            'action reserve takes one arg: how long, such as "30s" or "5m" ("0" reserves until released by the game server or deleted)',
          );
        const ms = parseDuration(args[0] as string);
        if (ms === undefined || ms > MAX_RESERVE_MS)
          throw new BadRequest(
            `reserve's duration must be like "30s", "5m" or "1h", at most 24h; got ${JSON.stringify(args[0])}`,
          );
        requireState(gs, action, ['Ready']);
        return {
          name: action,
          timeoutMs: BUILT_IN_TIMEOUT_MS,
          outcome: commandOutcome,
          run: () =>
            setState(['Ready'], 'Reserved', {
              reservedUntil: ms === 0 ? null : new Date(Date.now() + ms).toISOString(),
            }),
        };
      }
      case 'shutdown': {
        const force = args.length === 1 && args[0] === 'force';
        if (args.length > 0 && !force)
          throw new BadRequest('action shutdown takes no args, or ["force"] to shut down an Allocated server');
        requireState(gs, action, SHUTDOWN_FROM);
        // Agones deletes a Shutdown server, and Kubernetes its data claim: past a match, it is a delete.
        const guard = (server: AgonesGameServer): void => {
          const allocated = stateOf(server) === 'Allocated';
          const claim = dataClaimOf(server);
          if ((allocated || claim !== undefined) && !caller.mayDelete) {
            const what = [allocated ? 'players are on it' : '', claim ? `its data claim ${claim} goes with it` : '']
              .filter((s) => s !== '')
              .join(' and ');
            throw new Forbidden(
              `shutting down ${namespace}/${name} deletes it (${what}): that needs the permission to delete game servers, as DELETE does`,
            );
          }
          if (allocated && !force)
            throw new Conflict(
              `game server ${namespace}/${name} is Allocated: players are on it. Shut it down with args ["force"] (Agones itself never removes an Allocated server)`,
            );
        };
        guard(gs);
        return {
          name: action,
          timeoutMs: BUILT_IN_TIMEOUT_MS,
          outcome: commandOutcome,
          // Checked again on the server as the cluster has it: it may have been allocated since.
          run: () => setState(SHUTDOWN_FROM, 'Shutdown', {}, guard),
        };
      }
      case 'restart': {
        noArgs(action, args);
        const argv = profile?.restartCommand;
        if (argv === undefined) {
          const why =
            profileName === undefined
              ? 'it was not created from a profile'
              : profile === undefined
                ? `its profile ${profileName} is missing or invalid`
                : `its profile ${profileName} sets no restartCommand`;
          throw new Conflict(
            `game server ${namespace}/${name} cannot be restarted: ${why} (a container restart would make Agones mark it Unhealthy)`,
          );
        }
        requireState(gs, action, RUNNING);
        return {
          name: action,
          timeoutMs: BUILT_IN_TIMEOUT_MS,
          outcome: commandOutcome,
          run: command(argv, BUILT_IN_TIMEOUT_MS),
        };
      }
    }
  }
  // Own keys only: `constructor` or `toString` must not find what every object inherits.
  const defined = profile !== undefined && Object.hasOwn(profile.actions, action) ? profile.actions[action] : undefined;
  if (defined === undefined) {
    const own = profile ? Object.keys(profile.actions).sort() : [];
    const from = profile ? `; profile ${profile.name} defines ${own.length > 0 ? own.join(', ') : 'none'}` : '';
    throw new NotFound(
      `no action ${action} for game server ${namespace}/${name}: built-in actions are ${[...BUILT_IN_ACTIONS].sort().join(', ')}${from}`,
    );
  }
  requireState(gs, action, RUNNING);
  const timeoutMs = defined.timeoutSeconds * 1000;
  return { name: action, timeoutMs, outcome: commandOutcome, run: command([...defined.command, ...args], timeoutMs) };
}
