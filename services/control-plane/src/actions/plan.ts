import { BUILT_IN_ACTIONS, actionStates } from '../contract.js';
import { NotFound } from '../errors.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { BUILT_IN_PLANNERS } from './built-in.js';
import { actionRequest, commandAction, requireState } from './request.js';
import type { ActionCaller, ActionContext, ActionRequest, PlannedAction } from './request.js';

/** A command the server's profile defines, with the caller's args appended as argv elements. */
function planProfileAction(request: ActionRequest): PlannedAction {
  const { profile, action, namespace, name } = request;
  // Own keys only: `constructor` or `toString` must not find what every object inherits.
  const defined = profile !== undefined && Object.hasOwn(profile.actions, action) ? profile.actions[action] : undefined;
  if (defined === undefined) {
    const own = profile ? Object.keys(profile.actions).sort() : [];
    const from = profile ? `; profile ${profile.name} defines ${own.length > 0 ? own.join(', ') : 'none'}` : '';
    const builtIn = [...BUILT_IN_ACTIONS].sort().join(', ');
    throw new NotFound(
      `no action ${action} for game server ${namespace}/${name}: built-in actions are ${builtIn}${from}`,
    );
  }
  requireState(request.gs, action, actionStates(action));
  return commandAction(request, [...defined.command, ...request.args], defined.timeoutSeconds * 1000);
}

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
  const planner = BUILT_IN_PLANNERS.get(action) ?? planProfileAction;
  return planner(actionRequest(ctx, gs, action, args, caller));
}
