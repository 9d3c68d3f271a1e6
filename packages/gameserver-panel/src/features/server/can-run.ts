/**
 * Whether an action or a snapshot can succeed on the server as the page sees it, and if not, why,
 * in a sentence beside the disabled control. The rules are the control plane's own
 * (`@gsp/control-plane/contract`, which its actions and snapshots apply too); the control plane
 * still decides: the server may change between a look and a click.
 */
import { RUNNING_STATES, actionStates } from '@gsp/control-plane/contract';
import type { GameServerView, ProfileSummary } from './types';

/** The server's profile as the page knows it. */
export type ProfileState =
  | { state: 'none' }
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'done'; profile: ProfileSummary };

/** `A, B or C`. */
function either(states: readonly string[]): string {
  return states.length < 2 ? states.join('') : `${states.slice(0, -1).join(', ')} or ${states[states.length - 1]}`;
}

const allows = (states: readonly string[], state: string): boolean => states.includes(state);

function needsRunning(server: GameServerView, what: string): string | undefined {
  if (allows(RUNNING_STATES, server.state)) return undefined;
  const running = either(RUNNING_STATES);
  return `${what} runs in the game server's container, which needs the state ${running}; it is ${server.state}.`;
}

/** Why the server's profile cannot be relied on, or the profile. */
function profileOf(server: GameServerView, profile: ProfileState, needed: string): string | ProfileSummary {
  if (profile.state === 'done') return profile.profile;
  if (profile.state === 'none' || server.profile === null)
    return `It was not created from a profile, so it has no ${needed}.`;
  if (profile.state === 'loading') return `Reading its profile ${server.profile}…`;
  return `Its profile ${server.profile} cannot be read, so its ${needed} is unknown: ${profile.message}`;
}

/** Why `action` (a built-in one, or one the profile defines) cannot run now; undefined when it can. */
export function whyActionCannot(action: string, server: GameServerView, profile: ProfileState): string | undefined {
  const from = actionStates(action);
  switch (action) {
    case 'allocate':
    case 'reserve': {
      if (allows(from, server.state)) return undefined;
      const done = action === 'allocate' ? 'allocated' : 'reserved';
      return `Only a ${either(from)} game server can be ${done}; it is ${server.state}.`;
    }
    case 'shutdown':
      if (server.state === 'Shutdown') return 'It is shut down already.';
      return allows(from, server.state)
        ? undefined
        : `Shutting it down needs the state ${either(from)}; it is ${server.state}.`;
    case 'restart': {
      const known = profileOf(server, profile, 'restart command');
      if (typeof known === 'string') return known;
      if (known.restartCommand === undefined)
        return (
          `Its profile ${known.name} sets no restart command ` +
          '(restarting the container would make Agones mark it Unhealthy).'
        );
      return needsRunning(server, 'restart');
    }
    default:
      return needsRunning(server, action);
  }
}

/** Why a snapshot of the server cannot be taken now; undefined when it can. */
export function whySnapshotCannot(server: GameServerView, profile: ProfileState): string | undefined {
  const known = profileOf(server, profile, 'storage');
  if (typeof known === 'string') return known;
  if (known.storage === undefined) return `Its profile ${known.name} has no storage: there is nothing to snapshot.`;
  const { preCommand, postCommand } = known.snapshot ?? {};
  if (preCommand === undefined && postCommand === undefined) return undefined;
  return needsRunning(server, `Profile ${known.name}'s snapshot command`);
}
