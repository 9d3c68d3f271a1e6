import type { ApiKeyIdentity } from '../apikeys/store.js';
import type { Principal } from '../auth/principal.js';
import type { ApiKeyStore } from '../apikeys/store.js';
import type { GameServerListing } from '../gameservers/listing.js';
import { gameServerView } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import type { ChangeType, Informer } from '../kube/informer.js';
import { FeedStream } from './stream.js';
import type { FeedEnd } from './stream.js';
import { addTo, removeFrom } from '../multimap.js';

/** Every 15 s a comment, so proxies and clients see a quiet feed is alive. */
export const KEEP_ALIVE_MS = 15_000;
/** What a client may leave unread beyond its snapshot before it is cut: about 1,500 changes. */
export const MAX_BACKLOG_BYTES = 1024 * 1024;
const END_GRACE_MS = 5000;
/** setTimeout fires at once for longer delays. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const SNAPSHOT_HEAD = Buffer.from('event: snapshot\ndata: {"items":');
const SNAPSHOT_TAIL = Buffer.from('}\n\n');

const CHANGE_TYPES = { add: 'added', update: 'modified', delete: 'deleted' } as const satisfies Record<
  ChangeType,
  string
>;

export interface GameServerFeedOptions {
  gameServers: Pick<Informer<AgonesGameServer>, 'onChange' | 'requireReady'>;
  listing: Pick<GameServerListing, 'everything' | 'select' | 'json'>;
  apikeys: ApiKeyStore;
  /** Tells of each panel session that ends (`app.panelSessions.onEnded`), by the hash its principals carry. */
  onSessionEnded?: (listener: (sessionHash: string) => void) => () => void;
  maxBacklogBytes?: number;
  keepAliveMs?: number;
}

/** Who opens a feed: the principal and the namespaces it may list (the route's `filtered` check). */
export interface FeedCaller {
  principal: Principal;
  visible: 'all' | ReadonlySet<string>;
  /** What the response has queued and not yet handed to the socket. */
  queuedInResponse: () => number;
  onEnd(reason: FeedEnd): void;
}

type Closing = Exclude<FeedEnd, 'client went'>;
type Expiry = { at: number; reason: Closing };

/**
 * The live feeds of the game-server list on this replica. One informer listener serves them all:
 * a change is made into its frame once, and the changes of one turn of the event loop go to each
 * feed in one write (only to those that may see its namespace). A feed ends, saying why, when the
 * control plane stops, its API key is revoked or expires, its credential expires, or its panel
 * session ends.
 */
export class GameServerFeed {
  private readonly streams = new Set<FeedStream>();
  private readonly byKey = new Map<string, Set<FeedStream>>();
  private readonly bySession = new Map<string, Set<FeedStream>>();
  private readonly stops: (() => void)[];
  private readonly keepAlive: NodeJS.Timeout;
  private batch: { namespace: string; frame: string }[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(private readonly options: GameServerFeedOptions) {
    this.stops = [
      options.gameServers.onChange((type, gs) => this.changed(type, gs)),
      options.apikeys.onRevoked((key) => this.endAll(this.byKey.get(key.sha256), 'the API key was revoked')),
    ];
    if (options.onSessionEnded)
      this.stops.push(
        options.onSessionEnded((hash) => this.endAll(this.bySession.get(hash), 'the panel session has ended')),
      );
    this.keepAlive = setInterval(() => {
      for (const stream of this.streams) stream.send(': keep-alive\n\n');
    }, options.keepAliveMs ?? KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** How many feeds are open now. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * A feed for `caller`, starting with the snapshot of what it may see (503 until the informer
   * has listed game servers); the reply sends what it returns.
   */
  open(caller: FeedCaller): FeedStream {
    this.options.gameServers.requireReady();
    const { principal, visible } = caller;
    const apiKey = principal.apiKey;
    const session = principal.sessionHash;
    let cancelExpiry = (): void => undefined;
    const stream = new FeedStream({
      visible,
      queuedInResponse: caller.queuedInResponse,
      maxBacklogBytes: this.options.maxBacklogBytes ?? MAX_BACKLOG_BYTES,
      endGraceMs: END_GRACE_MS,
      onEnd: (reason) => {
        cancelExpiry();
        this.streams.delete(stream);
        if (apiKey !== undefined) removeFrom(this.byKey, apiKey.sha256, stream);
        if (session !== undefined) removeFrom(this.bySession, session, stream);
        caller.onEnd(reason);
      },
    });
    this.streams.add(stream);
    if (apiKey !== undefined) addTo(this.byKey, apiKey.sha256, stream);
    if (session !== undefined) addTo(this.bySession, session, stream);
    stream.snapshot(this.snapshot(visible));
    const ends = this.endOf(principal, apiKey);
    if (ends !== undefined) cancelExpiry = at(ends.at, () => stream.end(ends.reason));
    return stream;
  }

  /** Ends every feed (the control plane is stopping) and stops listening. */
  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
    clearInterval(this.keepAlive);
    clearImmediate(this.flushing);
    this.endAll(this.streams, 'the control plane is shutting down');
  }

  private snapshot(visible: 'all' | ReadonlySet<string>): Buffer[] {
    const { listing } = this.options;
    const items =
      visible === 'all' ? listing.everything() : listing.json(listing.select({ visible: (ns) => visible.has(ns) }));
    return [SNAPSHOT_HEAD, items, SNAPSHOT_TAIL];
  }

  /** When the caller's right to the feed ends by itself: its API key's or its credential's expiry. */
  private endOf(principal: Principal, apiKey: ApiKeyIdentity | undefined): Expiry | undefined {
    const ends: Expiry[] = [];
    if (apiKey !== undefined) {
      const record = this.options.apikeys.byHash(apiKey.sha256);
      // Revoked between authentication and now: it ends at once.
      if (record === undefined) ends.push({ at: 0, reason: 'the API key was revoked' });
      else if (record.expiresAt !== undefined)
        ends.push({ at: Date.parse(record.expiresAt), reason: 'the API key has expired' });
    }
    if (principal.expiresAt !== undefined) ends.push({ at: principal.expiresAt, reason: 'the credential has expired' });
    return ends.sort((a, b) => a.at - b.at)[0];
  }

  private changed(type: ChangeType, gs: AgonesGameServer): void {
    if (this.streams.size === 0) return;
    const item = gameServerView(gs);
    const data = JSON.stringify({ type: CHANGE_TYPES[type], item });
    this.batch.push({ namespace: item.namespace, frame: `event: change\ndata: ${data}\n\n` });
    // The changes of one turn (a relist brings many) go to each feed in one write.
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    const batch = this.batch;
    this.batch = [];
    const all = Buffer.from(batch.map((change) => change.frame).join(''));
    for (const stream of this.streams) {
      const seen = batch.filter((change) => stream.sees(change.namespace));
      if (seen.length === batch.length) stream.send(all);
      else if (seen.length > 0) stream.send(seen.map((change) => change.frame).join(''));
    }
  }

  private endAll(streams: Iterable<FeedStream> | undefined, reason: Closing): void {
    for (const stream of [...(streams ?? [])]) stream.end(reason);
  }
}

/** Calls `fire` at epoch ms `time` (at once when past); gives what cancels it. */
function at(time: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const delay = time - Date.now();
    if (delay <= 0) return fire();
    timer = setTimeout(arm, Math.min(delay, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
