/**
 * The game-server rules the panel applies too (`@gsp/control-plane/contract`): the Agones states,
 * which of them run the game's container, and what each action needs. The control plane decides
 * with them when a request comes; the panel says with them, before a click, why a control is
 * disabled. Browser-safe: no Node.js module and no server dependency here.
 */

/** The Agones game-server states, in lifecycle order. */
export const AGONES_STATES = [
  'Creating',
  'Scheduled',
  'RequestReady',
  'Ready',
  'Reserved',
  'Allocated',
  'Shutdown',
  'Unhealthy',
  'Error',
] as const;
export type AgonesState = (typeof AGONES_STATES)[number];

/**
 * States in which the game server's container runs, so a command can run in it: a profile's
 * action, `restart`, a snapshot's hooks, the console.
 */
export const RUNNING_STATES: readonly AgonesState[] = ['RequestReady', 'Ready', 'Reserved', 'Allocated'];

export function isRunning(state: string): boolean {
  return (RUNNING_STATES as readonly string[]).includes(state);
}

/** Built-in actions (Agones semantics); a profile may not define actions with these names. */
export const BUILT_IN_ACTIONS = ['allocate', 'shutdown', 'restart', 'reserve'] as const;
export type BuiltInAction = (typeof BUILT_IN_ACTIONS)[number];

/** The states each built-in action starts from; `shutdown`, from any but Shutdown itself. */
const BUILT_IN_FROM: Record<BuiltInAction, readonly AgonesState[]> = {
  allocate: ['Ready'],
  reserve: ['Ready'],
  shutdown: AGONES_STATES.filter((state) => state !== 'Shutdown'),
  restart: RUNNING_STATES,
};
/** A Map, so a name from a URL finds only the built-in actions (never `constructor`). */
const ACTION_FROM: ReadonlyMap<string, readonly AgonesState[]> = new Map(Object.entries(BUILT_IN_FROM));

/** The states `action` can start from: a built-in action's own, else (a command of the profile) RUNNING_STATES. */
export function actionStates(action: string): readonly AgonesState[] {
  return ACTION_FROM.get(action) ?? RUNNING_STATES;
}

/** What running any action takes: the route table's `runAction`. */
export const RUN_ACTION = {
  permission: { resource: 'gameservers', verb: 'execute' },
  minimumRole: 'operator',
} as const;

/**
 * What the `shutdown` action needs besides runAction's permission when it deletes more than a
 * match: Agones deletes a Shutdown server, and with it the data claim it owns, so shutting down
 * an Allocated server (players on it) or one with storage is a delete, held to DELETE's rules.
 */
export const DELETING_SHUTDOWN = {
  permission: { resource: 'gameservers', verb: 'delete' },
  minimumRole: 'admin',
} as const;

/** Whether shutting down a server in `state` deletes more than a match (DELETING_SHUTDOWN). */
export function shutdownDeletes(state: string, hasStorage: boolean): boolean {
  return state === 'Allocated' || hasStorage;
}
