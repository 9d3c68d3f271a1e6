/**
 * What planning an action starts from: the request (one action asked of one game server), the
 * checks of its state and args, and the two kinds of plan, a command in the game's container and
 * a built-in change of state. plan.ts picks the plan; run.ts runs it under the server's lock.
 */
import { BadRequest, Conflict } from '../errors.js';
import type { CommandRunner, CommandResult } from '../kube/exec.js';
import type { Informer } from '../kube/informer.js';
import type { GameServerClient } from '../gameservers/client.js';
import { PROFILE_LABEL, containerOf, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer, GameServer } from '../gameservers/model.js';
import type { Profile } from '../profiles/types.js';

/** Output kept of a command's stdout and of its stderr; the rest is dropped and `truncated` set. */
export const MAX_OUTPUT_BYTES = 64 * 1024;
/** Built-in actions that change the Agones state need no command, so are bounded by the Kubernetes timeout. */
export const BUILT_IN_TIMEOUT_MS = 30_000;

export type ActionResult = { action: string; gameServer: GameServer } | ({ action: string } & CommandResult);

export interface ActionContext {
  servers: GameServerClient;
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

/** One action asked of one game server (as the cache has it), with what planning it needs. */
export interface ActionRequest {
  ctx: ActionContext;
  gs: AgonesGameServer;
  namespace: string;
  name: string;
  action: string;
  args: readonly string[];
  caller: ActionCaller;
  /** The profile the server was made from (label gsp.dev/profile), if any. */
  profileName: string | undefined;
  /** That profile, undefined when there is none or it is missing or invalid. */
  profile: Profile | undefined;
}

export function actionRequest(
  ctx: ActionContext,
  gs: AgonesGameServer,
  action: string,
  args: readonly string[],
  caller: ActionCaller,
): ActionRequest {
  const profileName = gs.metadata?.labels?.[PROFILE_LABEL];
  return {
    ctx,
    gs,
    namespace: gs.metadata?.namespace ?? '',
    name: gs.metadata?.name ?? '',
    action,
    args,
    caller,
    profileName,
    profile: profileName === undefined ? undefined : ctx.profile(profileName),
  };
}

export function nameOf(gs: AgonesGameServer): string {
  return `${gs.metadata?.namespace ?? ''}/${gs.metadata?.name ?? ''}`;
}

/** 409 unless `gs` is in one of the `allowed` states and not being deleted. */
export function requireState(gs: AgonesGameServer, action: string, allowed: readonly string[]): void {
  const state = stateOf(gs);
  if (gs.metadata?.deletionTimestamp !== undefined)
    throw new Conflict(`game server ${nameOf(gs)} is being deleted (state ${state}); ${action} is not possible`);
  if (!allowed.includes(state))
    throw new Conflict(`${action} needs a game server in state ${allowed.join(' or ')}; ${nameOf(gs)} is ${state}`);
}

export function noArgs(action: string, args: readonly string[]): void {
  if (args.length > 0) throw new BadRequest(`action ${action} takes no args`);
}

export const commandOutcome = (result: ActionResult): string =>
  'exitCode' in result ? `exit ${result.exitCode}` : result.gameServer.state;

/** An action that runs `argv` in the game server's container, bounded by `timeoutMs`. */
export function commandAction(request: ActionRequest, argv: readonly string[], timeoutMs: number): PlannedAction {
  const { ctx, namespace, name, action, gs } = request;
  const run = async (): Promise<ActionResult> => ({
    action,
    ...(await ctx.exec.run({ namespace, pod: name, container: containerOf(gs) }, argv, {
      timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    })),
  });
  return { name: action, timeoutMs, outcome: commandOutcome, run };
}

/** A built-in action: bounded by the Kubernetes timeout, its outcome the state it leaves. */
export function builtInAction(request: ActionRequest, run: () => Promise<ActionResult>): PlannedAction {
  return { name: request.action, timeoutMs: BUILT_IN_TIMEOUT_MS, outcome: commandOutcome, run };
}
