import { durationVar, integerVar } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

/** How `GET /api/v1/events` behaves; read at start, a bad value stops the process naming its variable. */
export interface EventsConfig {
  /** `EVENTS_HEARTBEAT`: a comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** `EVENTS_REPLAY_LIMIT`: most outbox rows replayed after `Last-Event-ID`; more is `event: reload`. */
  replayLimit: number;
  /** `EVENTS_MAX_BACKLOG_BYTES`: bytes a stream may have queued for a slow reader before it is closed. */
  maxBacklogBytes: number;
}

export const EVENTS_DEFAULTS: EventsConfig = {
  heartbeatMs: 15_000,
  replayLimit: 1000,
  maxBacklogBytes: 256 * 1024,
};

export function readEventsConfig(env: Env): EventsConfig {
  return {
    heartbeatMs: durationVar(env, 'EVENTS_HEARTBEAT', EVENTS_DEFAULTS.heartbeatMs, 10),
    replayLimit: integerVar(env, 'EVENTS_REPLAY_LIMIT', EVENTS_DEFAULTS.replayLimit, { max: 100_000 }),
    // Above what a stream that is catching up keeps queued (a 16 KiB buffer and one event).
    maxBacklogBytes: integerVar(env, 'EVENTS_MAX_BACKLOG_BYTES', EVENTS_DEFAULTS.maxBacklogBytes, { min: 65_536 }),
  };
}
