import type { IncomingMessage } from 'node:http';
import { BadRequest, Conflict, NotFound } from '../errors.js';
import { containerOf, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import type { Informer } from '../kube/informer.js';
import type { LogStreamer } from '../kube/logs.js';
import { LogFollow } from './follow.js';
import type { LogEnd } from './follow.js';

export interface GameServerRef {
  namespace: string;
  name: string;
}

/** What a client asks of a log: Kubernetes' PodLogOptions the API passes on. */
export interface LogRequest {
  follow: boolean;
  tailLines?: number;
  sinceSeconds?: number;
}

/** A game server's log as Kubernetes answered it, not yet sent anywhere. */
export interface OpenedLog {
  target: GameServerRef;
  /** The game server the log was opened for: one of the same name created later is another. */
  uid: string | undefined;
  follow: boolean;
  source: IncomingMessage;
}

/**
 * The logs of game servers' containers: opened for a game server the informer knows, each
 * stream ended when its game server is deleted, and every stream ended at shutdown so that
 * closing does not wait on them.
 */
export class GameServerLogs {
  private readonly open = new Set<LogFollow>();

  constructor(
    private readonly gameServers: Pick<Informer<AgonesGameServer>, 'requireReady' | 'get' | 'onChange'>,
    private readonly streamer: Pick<LogStreamer, 'stream'>,
  ) {}

  /**
   * The log of `target`'s container: 404 when the game server is unknown, 409 when it has no pod
   * or its container cannot give its log yet (503 until the informer has listed game servers).
   */
  async read(target: GameServerRef, request: LogRequest): Promise<OpenedLog> {
    const { namespace, name } = target;
    this.gameServers.requireReady();
    const gs = this.gameServers.get(namespace, name);
    if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
    try {
      // The pod has the game server's name (Agones).
      const source = await this.streamer.stream({ namespace, pod: name, container: containerOf(gs) }, request);
      return { target, uid: gs.metadata?.uid, follow: request.follow, source };
    } catch (err) {
      const now = this.gameServers.get(namespace, name);
      if (err instanceof NotFound) {
        if (now === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
        throw new Conflict(`game server ${namespace}/${name} has no pod (it is ${stateOf(now)}), so no log to read`);
      }
      // Kubernetes' 400 on valid parameters: the container cannot give its log yet (waiting to start).
      if (err instanceof BadRequest)
        throw new Conflict(`the log of game server ${namespace}/${name} cannot be read now: ${err.message}`);
      throw err;
    }
  }

  /** Sends `log` on, framed as plain text or as events, until it or its game server ends. */
  follow(log: OpenedLog, options: { events: boolean; onEnd(reason: LogEnd): void }): LogFollow {
    const { namespace, name } = log.target;
    const deleted = (): boolean => {
      const now = this.gameServers.get(namespace, name);
      return now === undefined || now.metadata?.uid !== log.uid || now.metadata?.deletionTimestamp !== undefined;
    };
    const follow = new LogFollow(log.source, {
      ...options,
      follow: log.follow,
      what: `game server ${namespace}/${name}`,
      deleted,
    });
    const unsubscribe = this.gameServers.onChange((change, object) => {
      if (change === 'delete' && object.metadata?.uid === log.uid) follow.end('game server deleted');
    });
    this.open.add(follow);
    follow.body.once('close', () => {
      unsubscribe();
      this.open.delete(follow);
    });
    return follow;
  }

  /** Ends every stream open now (the control plane is shutting down). */
  endAll(): void {
    for (const follow of [...this.open]) follow.end('control plane shutting down');
  }
}
