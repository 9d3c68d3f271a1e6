/**
 * Whether an action or a snapshot can succeed on the server as the page sees it, and if not, why,
 * in a sentence beside the disabled control. These restate the control plane's own checks
 * (services/control-plane/src/gameservers/built-in-actions.ts, snapshots/take.ts), which still
 * decide: the server may change between a look and a click.
 */
import type { GameServerView, ProfileSummary } from './types';

/** The server's profile as the page knows it. */
export type ProfileState =
  | { state: 'none' }
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'done'; profile: ProfileSummary };

/** States in which the game server's container runs, so a command can run in it. */
const RUNNING = ['RequestReady', 'Ready', 'Reserved', 'Allocated'];
const RUNNING_TEXT = 'RequestReady, Ready, Reserved or Allocated';

function needsRunning(server: GameServerView, what: string): string | undefined {
  if (RUNNING.includes(server.state)) return undefined;
  return `${what} runs in the game server's container, which needs the state ${RUNNING_TEXT}; it is ${server.state}.`;
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
  switch (action) {
    case 'allocate':
    case 'reserve':
      return server.state === 'Ready'
        ? undefined
        : `Only a Ready game server can be ${action === 'allocate' ? 'allocated' : 'reserved'}; it is ${server.state}.`;
    case 'shutdown':
      return server.state === 'Shutdown' ? 'It is shut down already.' : undefined;
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
