import type { ServerResponse } from 'node:http';
import type { EventBus } from '@gsp/events';
import type { Logger } from '@gsp/service-kit';
import { CONSOLE_SESSION_ENDED_EVENT, isConsoleSessionEndedEvent } from '@gsp/platform-contract';
import type { Queryable } from '@gsp/platform-contract';
import { liveSessions } from '../console-bff/sessions.js';
import type { EventsConfig } from '../config/events.js';
import { FEED_BUS_TYPES, toFeedEvent } from './feed-event.js';
import type { FeedEvent } from './feed-event.js';
import { readActorRoles, readIdentity } from './identity.js';
import { readReplay } from './replay.js';
import { FeedStream } from './stream.js';
import type { StartOptions } from './stream.js';

export interface EventFeedOptions extends EventsConfig {
  db: Queryable;
  /** The process's event transport, on which the outbox relay publishes every committed event. */
  bus: EventBus;
  platformId: string;
  log: Pick<Logger, 'warn'>;
}

/** A stream subscribed and its replay read, ready to answer. */
export interface OpenedStream {
  /** Resolves once the stream has caught up and is live (or has ended). */
  start(res: ServerResponse, options: Omit<StartOptions, 'identity' | 'replay'>): Promise<void>;
}

/**
 * The events of `GET /api/v1/events` in one process: one bus subscription per event type, each
 * event built once and fanned out to the set of open streams, which filter it for their caller.
 */
export class EventFeed {
  private readonly streams = new Set<FeedStream>();
  /** Streams opened with a console session, by the session's id hash. */
  private readonly bySession = new Map<string, Set<FeedStream>>();
  private readonly unsubscribes: (() => void)[];
  private readonly heartbeat: NodeJS.Timeout;
  /** Events wait in turn for their actor's role, so every stream sees them in publication order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: EventFeedOptions) {
    this.unsubscribes = FEED_BUS_TYPES.map((type) =>
      options.bus.subscribe(type, {
        event: (payload) => this.receive(type, payload),
        resync: () => {
          for (const stream of this.streams) stream.resync();
        },
      }),
    );
    this.unsubscribes.push(
      options.bus.subscribe(CONSOLE_SESSION_ENDED_EVENT, {
        event: (payload) => {
          if (isConsoleSessionEndedEvent(payload)) this.sessionEnded(payload.sessionHash);
        },
        // A sign-out may have been lost in transit: ask the database which sessions still stand.
        resync: () => void this.recheckSessions([...this.bySession.keys()]),
      }),
    );
    // One timer for every stream of the process rather than one each.
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) stream.heartbeat();
    }, options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Open streams in this process. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Subscribes a stream for `subject`, then reads what it may see and, after `afterId`, what it
   * missed: an event committed meanwhile is held by the stream, so none falls in between.
   */
  async open(subject: string, afterId: bigint | undefined, session?: string): Promise<OpenedStream> {
    const { db, platformId, replayLimit, maxBacklogBytes } = this.options;
    const stream = new FeedStream({ subject, session, maxBacklogBytes, maxPending: replayLimit });
    this.streams.add(stream);
    if (session !== undefined) this.addSessionStream(session, stream);
    stream.onEnd(() => this.streams.delete(stream));
    try {
      // A sign-out committed after the request was authenticated but before this stream subscribed.
      if (session !== undefined) await this.recheckSessions([session]);
      const identity = await readIdentity(db, subject, platformId);
      const replay = afterId === undefined ? undefined : await readReplay(db, afterId, replayLimit);
      if (replay?.kind === 'events') await this.resolveActorRoles(replay.events);
      return { start: (res, options) => stream.start(res, { ...options, identity, replay }) };
    } catch (err) {
      stream.abandon();
      throw err;
    }
  }

  /** Ends every stream (`event: close`, reason `shutdown`) and unsubscribes. */
  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    clearInterval(this.heartbeat);
    await Promise.all([...this.streams].map((stream) => stream.close('shutdown')));
  }

  private addSessionStream(session: string, stream: FeedStream): void {
    let streams = this.bySession.get(session);
    if (streams === undefined) this.bySession.set(session, (streams = new Set()));
    streams.add(stream);
    stream.onEnd(() => {
      streams.delete(stream);
      if (streams.size === 0 && this.bySession.get(session) === streams) this.bySession.delete(session);
    });
  }

  private sessionEnded(session: string): void {
    const streams = this.bySession.get(session);
    if (streams !== undefined) for (const stream of [...streams]) stream.sessionEnded();
  }

  /** Ends the streams of those `sessions` that no longer stand; when it cannot tell, they go on. */
  private async recheckSessions(sessions: readonly string[]): Promise<void> {
    if (sessions.length === 0) return;
    let live: Set<string>;
    try {
      live = await liveSessions(this.options.db, sessions);
    } catch (err) {
      this.options.log.warn(
        { err: { message: (err as Error).message } },
        'events: could not re-check console sessions',
      );
      return;
    }
    for (const session of sessions) if (!live.has(session)) this.sessionEnded(session);
  }

  private receive(type: string, payload: unknown): void {
    if (this.streams.size === 0) return;
    const event = toFeedEvent(type, payload);
    if (event === undefined) return;
    this.queue = this.queue
      .then(async () => {
        if (event.needsActorRole) await this.resolveActorRoles([event]);
        for (const stream of this.streams) stream.deliver(event);
      })
      // A failure must not stop the events after it.
      .catch((err: Error) => this.options.log.warn({ err: { message: err.message } }, 'events: fan-out failed'));
  }

  /**
   * Member and cluster events do not record their actor's role; it is looked up (once per event
   * and process) so that a platform admin's subject is hidden from tenants. When it cannot be,
   * the role stays unknown and tenants are not shown the actor.
   */
  private async resolveActorRoles(events: readonly FeedEvent[]): Promise<void> {
    const unresolved = events.filter((event) => event.needsActorRole);
    if (unresolved.length === 0) return;
    try {
      const roleOf = await readActorRoles(
        this.options.db,
        this.options.platformId,
        unresolved.map((event) => event.actor!),
      );
      for (const event of unresolved) event.actorRole = roleOf(event.actor!, event.org);
    } catch (err) {
      this.options.log.warn(
        { err: { message: (err as Error).message } },
        'events: could not read actor roles; tenants are not shown these actors',
      );
    }
  }
}
