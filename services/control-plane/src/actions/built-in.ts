import { randomBytes } from 'node:crypto';
import { parseDuration } from '@gsp/service-kit';
import { BadRequest, Conflict, Forbidden } from '../errors.js';
import { actionStates, shutdownDeletes } from '../contract.js';
import type { BuiltInAction } from '../contract.js';
import { gameServerView, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { SETTLE_MS } from '../kube/informer.js';
import { claimName } from '../profiles/manifest.js';
import { BUILT_IN_TIMEOUT_MS, builtInAction, commandAction, noArgs, requireState } from './request.js';
import type { ActionRequest, ActionResult, PlannedAction } from './request.js';

/** Longest reservation: Agones takes seconds as an int32, but a day is the most a panel needs. */
const MAX_RESERVE_MS = 24 * 3_600_000;
const ALLOCATION_LABEL = 'gsp.dev/allocation';
/** The states each built-in action starts from, the panel's rules too (src/contract.ts). */
const ALLOCATE_FROM = actionStates('allocate');
const RESERVE_FROM = actionStates('reserve');
const SHUTDOWN_FROM = actionStates('shutdown');
const RESTART_FROM = actionStates('restart');

/** Checks a built-in action's args and the server's state, and says how it is run (README "Actions"). */
type Planner = (request: ActionRequest) => PlannedAction;

/** allocate: what a matchmaker does, through a GameServerAllocation, so Agones' own rules apply. */
function planAllocate(request: ActionRequest): PlannedAction {
  noArgs(request.action, request.args);
  requireState(request.gs, request.action, ALLOCATE_FROM);
  return builtInAction(request, () => allocate(request));
}

async function allocate(request: ActionRequest): Promise<ActionResult> {
  const { ctx, namespace, name, action } = request;
  const fresh = await currentServer(request, ALLOCATE_FROM);
  // A GameServerAllocation can only pick this server: it alone carries this label value.
  const token = randomBytes(8).toString('hex');
  const labelled = {
    metadata: { resourceVersion: fresh.metadata?.resourceVersion, labels: { [ALLOCATION_LABEL]: token } },
  };
  await ctx.servers.patch(namespace, name, labelled);
  const state = await ctx.servers.allocate(namespace, { [ALLOCATION_LABEL]: token });
  if (state !== 'Allocated') {
    const now = ctx.gameServers.get(namespace, name);
    throw new Conflict(
      `Agones did not allocate ${namespace}/${name} (${state ?? 'no answer'}); it is ${now ? stateOf(now) : 'gone'}`,
    );
  }
  const seen = await ctx.gameServers.waitFor(
    namespace,
    name,
    (o) => o === undefined || stateOf(o) === 'Allocated',
    SETTLE_MS,
  );
  const cached = ctx.gameServers.get(namespace, name);
  if (!seen || cached === undefined) return { action, gameServer: { ...gameServerView(fresh), state: 'Allocated' } };
  return { action, gameServer: gameServerView(cached) };
}

/** reserve: out of allocation for a while (args: a duration; "0" until released or deleted). */
function planReserve(request: ActionRequest): PlannedAction {
  const { args } = request;
  if (args.length !== 1)
    throw new BadRequest(
      'action reserve takes one arg: how long, such as "30s" or "5m" ' +
        '("0" reserves until released by the game server or deleted)',
    );
  const ms = parseDuration(args[0] as string);
  if (ms === undefined || ms > MAX_RESERVE_MS)
    throw new BadRequest(
      `reserve's duration must be like "30s", "5m" or "1h", at most 24h; got ${JSON.stringify(args[0])}`,
    );
  requireState(request.gs, request.action, RESERVE_FROM);
  const reservedUntil = (): string | null => (ms === 0 ? null : new Date(Date.now() + ms).toISOString());
  return builtInAction(request, () => setState(request, RESERVE_FROM, 'Reserved', { reservedUntil: reservedUntil() }));
}

/**
 * Agones deletes a Shutdown server, and Kubernetes its data claim: past a match, a shutdown is a
 * delete, which needs the permission to delete, and `force` for an Allocated server, as DELETE does.
 */
function shutdownGuard(request: ActionRequest, force: boolean): (server: AgonesGameServer) => void {
  const { namespace, name, caller } = request;
  return (server) => {
    const allocated = stateOf(server) === 'Allocated';
    const claim = dataClaimOf(server);
    if (shutdownDeletes(stateOf(server), claim !== undefined) && !caller.mayDelete) {
      const what = [allocated ? 'players are on it' : '', claim ? `its data claim ${claim} goes with it` : '']
        .filter((s) => s !== '')
        .join(' and ');
      throw new Forbidden(
        `shutting down ${namespace}/${name} deletes it (${what}): ` +
          'that needs the permission to delete game servers, as DELETE does',
      );
    }
    if (allocated && !force)
      throw new Conflict(
        `game server ${namespace}/${name} is Allocated: players are on it. ` +
          'Shut it down with args ["force"] (Agones itself never removes an Allocated server)',
      );
  };
}

/** The data claim `<name>-data` the server mounts (made from a profile with storage), if any. */
function dataClaimOf(gs: AgonesGameServer): string | undefined {
  const claim = claimName(gs.metadata?.name ?? '');
  const volumes = (gs.spec?.template?.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] })
    ?.volumes;
  return volumes?.some((v) => v.persistentVolumeClaim?.claimName === claim) ? claim : undefined;
}

/** shutdown: graceful, as the game server's SDK would (args: none, or ["force"] for an Allocated one). */
function planShutdown(request: ActionRequest): PlannedAction {
  const { args } = request;
  const force = args.length === 1 && args[0] === 'force';
  if (args.length > 0 && !force)
    throw new BadRequest('action shutdown takes no args, or ["force"] to shut down an Allocated server');
  requireState(request.gs, request.action, SHUTDOWN_FROM);
  const guard = shutdownGuard(request, force);
  guard(request.gs);
  // Checked again on the server as the cluster has it: it may have been allocated since.
  return builtInAction(request, () => setState(request, SHUTDOWN_FROM, 'Shutdown', {}, guard));
}

/** restart: the profile's restartCommand, in the container (a container restart would be Unhealthy). */
function planRestart(request: ActionRequest): PlannedAction {
  const { namespace, name, profileName, profile } = request;
  noArgs(request.action, request.args);
  const argv = profile?.restartCommand;
  if (argv === undefined) {
    const why =
      profileName === undefined
        ? 'it was not created from a profile'
        : profile === undefined
          ? `its profile ${profileName} is missing or invalid`
          : `its profile ${profileName} sets no restartCommand`;
    throw new Conflict(
      `game server ${namespace}/${name} cannot be restarted: ${why} ` +
        '(a container restart would make Agones mark it Unhealthy)',
    );
  }
  requireState(request.gs, request.action, RESTART_FROM);
  return commandAction(request, argv, BUILT_IN_TIMEOUT_MS);
}

/** The server as the cluster has it now, checked again: the cache may trail a change just made. */
export async function currentServer(request: ActionRequest, allowed: readonly string[]): Promise<AgonesGameServer> {
  const fresh = await request.ctx.servers.get(request.namespace, request.name);
  requireState(fresh, request.action, allowed);
  return fresh;
}

/**
 * The answer to a state change once the watch shows it (or `written`, after SETTLE_MS), so the
 * caller's next read agrees with it.
 */
export async function settled(request: ActionRequest, written: AgonesGameServer, state: string): Promise<ActionResult> {
  const { ctx, namespace, name, action } = request;
  await ctx.gameServers.waitFor(
    namespace,
    name,
    (o) => o === undefined || stateOf(o) === state || o.metadata?.resourceVersion === written.metadata?.resourceVersion,
    SETTLE_MS,
  );
  const seen = ctx.gameServers.get(namespace, name);
  return { action, gameServer: gameServerView(seen !== undefined && stateOf(seen) === state ? seen : written) };
}

/**
 * Moves the server from one of the `allowed` states to `state` (with `extra` status fields),
 * checked again by `check` on the server as the cluster has it.
 */
export async function setState(
  request: ActionRequest,
  allowed: readonly string[],
  state: string,
  extra: Record<string, unknown> = {},
  check: (fresh: AgonesGameServer) => void = () => undefined,
): Promise<ActionResult> {
  const fresh = await currentServer(request, allowed);
  check(fresh);
  // The resourceVersion makes the write conditional: a server that changed since it was read gets 409.
  const body = { metadata: { resourceVersion: fresh.metadata?.resourceVersion }, status: { state, ...extra } };
  const written = await request.ctx.servers.patch(request.namespace, request.name, body);
  return settled(request, written, state);
}

const PLANNERS: Record<BuiltInAction, Planner> = {
  allocate: planAllocate,
  reserve: planReserve,
  shutdown: planShutdown,
  restart: planRestart,
};

/** The built-in actions by name; a Map, so a name from a URL finds only these (never `constructor`). */
export const BUILT_IN_PLANNERS: ReadonlyMap<string, Planner> = new Map(Object.entries(PLANNERS));
