import { BadRequest, NotFound } from '../errors.js';
import type { Informer } from '../kube/informer.js';
import { gameServerView } from './model.js';
import type { AgonesGameServer, GameServer } from './model.js';
import { SelectorError, matches, parseSelector } from './selector.js';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** Which game servers a list asks for; `visible` says which namespaces the caller may see. */
export interface GameServerFilter {
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  state?: string | undefined;
  visible: (namespace: string) => boolean;
}

interface Built {
  version: number;
  items: GameServer[];
  json: WeakMap<GameServer, Buffer>;
  whole?: Buffer;
}

const byNamespaceThenName = (a: GameServer, b: GameServer): number =>
  a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1;

/**
 * The game servers of the cache as lists answer them: sorted views with their JSON, rebuilt only
 * after the watch changed something, so a list is filtering and joining bytes, not serialising
 * objects. Reads answer 503 until the first list.
 */
export class GameServerListing {
  private built: Built | undefined;

  constructor(private readonly gameServers: Informer<AgonesGameServer>) {}

  private current(): Built {
    this.gameServers.requireReady();
    if (this.built?.version !== this.gameServers.version) {
      const items = this.gameServers.list().map(gameServerView).sort(byNamespaceThenName);
      const json = new WeakMap(items.map((i) => [i, Buffer.from(JSON.stringify(i))]));
      this.built = { version: this.gameServers.version, items, json };
    }
    return this.built;
  }

  /** Game server `namespace/name` as the cache has it; 404 when it has none. */
  cached(namespace: string, name: string): AgonesGameServer {
    this.gameServers.requireReady();
    const gs = this.gameServers.get(namespace, name);
    if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
    return gs;
  }

  /** Every game server as a JSON array, kept until the next change: the most common list. */
  everything(): Buffer {
    const built = this.current();
    built.whole ??= this.json(built.items);
    return built.whole;
  }

  /** The game servers `filter` asks for, sorted by namespace, then name; a bad selector is 400. */
  select(filter: GameServerFilter): GameServer[] {
    this.gameServers.requireReady();
    let requirements;
    try {
      requirements = parseSelector(filter.labelSelector ?? '');
    } catch (err) {
      if (err instanceof SelectorError) throw new BadRequest(err.message);
      throw err;
    }
    const { namespace, state, visible } = filter;
    return this.current().items.filter(
      (gs) =>
        (namespace === undefined || gs.namespace === namespace) &&
        visible(gs.namespace) &&
        (state === undefined || gs.state === state) &&
        matches(requirements, gs.labels),
    );
  }

  /** A JSON array of `items` (from `select`), already serialised: copying bytes, not encoding text again. */
  json(items: readonly GameServer[]): Buffer {
    const { json } = this.current();
    const parts: Buffer[] = [OPEN];
    items.forEach((item, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(json.get(item) as Buffer);
    });
    parts.push(CLOSE);
    return Buffer.concat(parts);
  }
}
