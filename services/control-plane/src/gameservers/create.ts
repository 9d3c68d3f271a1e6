import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditDetails } from '../audit-target.js';
import { Unprocessable } from '../errors.js';
import { SETTLE_MS } from '../kube/informer.js';
import type { Informer } from '../kube/informer.js';
import { checkUserLabels, gameServerManifest, generateName } from '../profiles/manifest.js';
import type { GameServerManifests } from '../profiles/manifest.js';
import { invalidBody } from '../profiles/schema.js';
import type { ProfileStore } from '../profiles/store.js';
import type { Profile } from '../profiles/types.js';
import { checkRestorable } from './restore.js';
import type { GameServerClient } from './client.js';
import { gameServerView } from './model.js';
import type { AgonesGameServer, GameServer } from './model.js';

/** What a caller asks for (the body of POST /api/v1/gameservers/{namespace}). */
export interface GameServerOrder {
  profile: string;
  name?: string;
  labels?: Record<string, string>;
  env?: Record<string, string>;
  fromSnapshot?: string;
}

export interface CreationContext {
  servers: GameServerClient;
  core: CoreV1Api;
  /** For the snapshot a server is restored from. */
  custom: CustomObjectsApi;
  gameServers: Informer<AgonesGameServer>;
  profiles: Pick<ProfileStore, 'get' | 'invalid'>;
}

/** Who is creating: where its audit line learns the target and outcome, and its request's log. */
export interface Creator {
  audit: (details: AuditDetails) => void;
  log: FastifyBaseLogger;
}

/**
 * Game servers made from profiles: the GameServer and, with storage, its data claim, both or
 * neither; answered once this replica's cache shows the new server (at most SETTLE_MS).
 */
export class GameServerCreation {
  constructor(private readonly ctx: CreationContext) {}

  /**
   * Creates a game server in `namespace` as `order` says. An unknown or invalid profile is 422,
   * a reserved or malformed label 400, a snapshot that cannot be restored 422 or 409, a name
   * taken 409.
   */
  async create(namespace: string, order: GameServerOrder, creator: Creator): Promise<GameServer> {
    const profile = this.profile(order.profile);
    const labels = order.labels ?? {};
    const labelErrors = checkUserLabels(labels);
    if (labelErrors.length > 0) throw invalidBody(labelErrors);
    const name = order.name ?? generateName(profile.name);
    creator.audit({ target: `${namespace}/${name}` });
    const { fromSnapshot } = order;
    if (fromSnapshot !== undefined) {
      await checkRestorable(this.ctx.custom, namespace, fromSnapshot, profile);
      creator.audit({ outcome: `restored from snapshot ${fromSnapshot}` });
    }
    const manifests = gameServerManifest(profile, {
      namespace,
      name,
      labels,
      env: order.env ?? {},
      ...(fromSnapshot === undefined ? {} : { fromSnapshot }),
    });
    const created = await this.createWithStorage(namespace, name, manifests, creator.log);
    const { gameServers } = this.ctx;
    await gameServers.waitFor(namespace, name, (o) => o?.metadata?.uid === created.metadata?.uid, SETTLE_MS);
    return gameServerView(gameServers.get(namespace, name) ?? created);
  }

  /** The valid profile `name`; 422 naming what is wrong with it otherwise. */
  private profile(name: string): Profile {
    const profile = this.ctx.profiles.get(name);
    if (profile !== undefined) return profile;
    const invalid = this.ctx.profiles.invalid(name);
    if (invalid === undefined) throw new Unprocessable(`unknown profile ${name}`);
    const errors = invalid.errors.map((e) => `${e.pointer} ${e.message}`).join('; ');
    throw new Unprocessable(`profile ${name} is invalid (ConfigMap ${invalid.configMap}): ${errors}`);
  }

  /** The GameServer, then its claim (owned by it); a claim that fails takes the server back. */
  private async createWithStorage(
    namespace: string,
    name: string,
    { gameServer, claim }: GameServerManifests,
    log: FastifyBaseLogger,
  ): Promise<AgonesGameServer> {
    const created = await this.ctx.servers.create(namespace, gameServer);
    if (claim === undefined) return created;
    try {
      await this.ctx.core.createNamespacedPersistentVolumeClaim({
        namespace,
        body: claim(created.metadata?.uid ?? ''),
      });
    } catch (err) {
      // Without its storage the server is not what was asked for: take it back, then say why.
      await this.ctx.servers.delete(namespace, name).catch((cleanup: unknown) => {
        log.warn(
          { err: { message: (cleanup as Error).message } },
          `could not remove game server ${namespace}/${name} whose storage failed`,
        );
      });
      throw err;
    }
    return created;
  }
}
