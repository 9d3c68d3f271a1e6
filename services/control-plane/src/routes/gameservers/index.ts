import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DELETING_SHUTDOWN, routeOf } from '../table.js';
import { BadRequest, Conflict, NotFound, Unprocessable } from '../../errors.js';
import { isHeld } from '../../gameservers/locks.js';
import { planAction } from '../../gameservers/actions.js';
import type { ActionContext } from '../../gameservers/actions.js';
import { AGONES, GameServerSchema, gameServerView, stateOf } from '../../gameservers/model.js';
import type { AgonesGameServer, GameServer } from '../../gameservers/model.js';
import { SelectorError, matches, parseSelector } from '../../gameservers/selector.js';
import { checkUserLabels, gameServerManifest, generateName } from '../../profiles/manifest.js';
import { envVars, invalidBody } from '../../profiles/schema.js';
import { checkRestorable } from '../../snapshots/take.js';
import {
  Namespace,
  Name,
  ActionName,
  Argv,
  ARGS_BODY_LIMIT,
  checkArgsSize,
  checkListedNamespace,
  DNS_LABEL_RULE,
  dnsLabel,
  dnsSubdomain,
  mayList,
  page,
  ListQuery,
} from '../params.js';

/** How long a write waits for the watch to show it, so the caller's next read sees it; then it answers anyway. */
const SETTLE_MS = 2000;

const GameServerParams = Type.Object({ namespace: Namespace, name: Name });

const CreateBody = Type.Object(
  {
    profile: dnsLabel({ errorMessage: DNS_LABEL_RULE, description: 'The profile to create it from.' }),
    name: Type.Optional(
      dnsLabel({ errorMessage: DNS_LABEL_RULE, description: 'Default: the profile name and a random suffix.' }),
    ),
    labels: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Extra labels; keys under gsp.dev/ are reserved.' }),
    ),
    env: Type.Optional(envVars({ description: "Environment variables added to the profile's (these win)." })),
    fromSnapshot: Type.Optional(
      dnsSubdomain({
        description:
          "A VolumeSnapshot in this namespace, ready to use, that the new server's storage is restored from (its claim's dataSource).",
      }),
    ),
  },
  { additionalProperties: false },
);

const ActionBody = Type.Object(
  { args: Type.Optional(Argv) },
  {
    additionalProperties: false,
    description: 'args are appended to the command as separate argv elements, never through a shell.',
  },
);

const ActionAnswer = Type.Union([
  Type.Object(
    { action: Type.String(), gameServer: GameServerSchema },
    { description: 'allocate, reserve, shutdown: the state it is now in.' },
  ),
  Type.Object(
    {
      action: Type.String(),
      exitCode: Type.Integer(),
      stdout: Type.String(),
      stderr: Type.String(),
      truncated: Type.Boolean({ description: 'stdout or stderr was cut at 64 KiB.' }),
      durationMs: Type.Integer(),
    },
    {
      description:
        'restart and profile actions: what the command did. A non-zero exit code is still a 200: the command ran.',
    },
  ),
]);

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** A JSON array of items already serialised: copying bytes, not encoding text again. */
function jsonArray(items: readonly GameServer[], json: WeakMap<GameServer, Buffer>): Buffer {
  const parts: Buffer[] = [OPEN];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(json.get(item) as Buffer);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const gameServerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { custom, core, exec } = app.kube;
  const { gameServers, locks } = app.agones;
  const ctx: ActionContext = { custom, exec, gameServers, profile: (name) => app.profiles.get(name) };

  // The sorted representation of every game server with its JSON, rebuilt only after the watch
  // changed something: a list is then filtering and joining strings, not serialising objects.
  let sorted: { version: number; items: GameServer[]; json: WeakMap<GameServer, Buffer>; whole?: Buffer } | undefined;
  const all = (): NonNullable<typeof sorted> => {
    if (sorted?.version !== gameServers.version) {
      const items = gameServers.list().map(gameServerView);
      items.sort((a, b) =>
        a.namespace === b.namespace
          ? a.name < b.name
            ? -1
            : a.name > b.name
              ? 1
              : 0
          : a.namespace < b.namespace
            ? -1
            : 1,
      );
      sorted = {
        version: gameServers.version,
        items,
        json: new WeakMap(items.map((i) => [i, Buffer.from(JSON.stringify(i))])),
      };
    }
    return sorted;
  };

  const cached = (namespace: string, name: string): AgonesGameServer => {
    gameServers.requireReady();
    const gs = gameServers.get(namespace, name);
    if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
    return gs;
  };

  app.route({
    ...routeOf('listGameServers'),
    schema: {
      tags: ['gameservers'],
      querystring: Type.Intersect([
        ListQuery,
        Type.Object({
          labelSelector: Type.Optional(Type.String({ maxLength: 1024 })),
          state: Type.Optional(Type.String({ maxLength: 32 })),
        }),
      ]),
      response: { 200: Type.Array(GameServerSchema) },
    },
    handler: async (request, reply) => {
      const { namespace, labelSelector, state } = request.query;
      checkListedNamespace(request, namespace, 'game servers');
      gameServers.requireReady();
      let requirements;
      try {
        requirements = parseSelector(labelSelector ?? '');
      } catch (err) {
        if (err instanceof SelectorError) throw new BadRequest(err.message);
        throw err;
      }
      const cache = all();
      const { items, json } = cache;
      // The most common list, everything for a caller who sees everything, is answered as it was last built.
      const everything =
        namespace === undefined &&
        labelSelector === undefined &&
        state === undefined &&
        request.query.limit === undefined &&
        request.query.continue === undefined;
      if (everything && !(request.visibleNamespaces instanceof Set)) {
        cache.whole ??= jsonArray(items, json);
        return reply.type('application/json; charset=utf-8').send(cache.whole as unknown as GameServer[]);
      }
      const wanted = items.filter(
        (gs) =>
          (namespace === undefined || gs.namespace === namespace) &&
          mayList(request, gs.namespace) &&
          (state === undefined || gs.state === state) &&
          matches(requirements, gs.labels),
      );
      // Already JSON, in the shape the response schema documents (the reply is typed for the objects).
      const body = jsonArray(page(request, reply, wanted), json);
      return reply.type('application/json; charset=utf-8').send(body as unknown as GameServer[]);
    },
  });

  app.route({
    ...routeOf('getGameServer'),
    schema: { tags: ['gameservers'], params: GameServerParams, response: { 200: GameServerSchema } },
    handler: async (request) => gameServerView(cached(request.params.namespace, request.params.name)),
  });

  app.route({
    ...routeOf('createGameServer', [409, 422]),
    schema: {
      tags: ['gameservers'],
      params: Type.Object({ namespace: Namespace }),
      body: CreateBody,
      response: { 201: GameServerSchema },
    },
    handler: async (request, reply) => {
      const { namespace } = request.params;
      const { profile: profileName, labels = {}, env = {} } = request.body;
      const profile = app.profiles.get(profileName);
      if (profile === undefined) {
        const invalid = app.profiles.invalid(profileName);
        if (invalid)
          throw new Unprocessable(
            `profile ${profileName} is invalid (ConfigMap ${invalid.configMap}): ${invalid.errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`,
          );
        throw new Unprocessable(`unknown profile ${profileName}`);
      }
      const labelErrors = checkUserLabels(labels);
      if (labelErrors.length > 0) throw invalidBody(labelErrors);
      const name = request.body.name ?? generateName(profile.name);
      request.auditTarget = `${namespace}/${name}`;
      const { fromSnapshot } = request.body;
      if (fromSnapshot !== undefined) {
        await checkRestorable(custom, namespace, fromSnapshot, profile);
        request.auditOutcome = `restored from snapshot ${fromSnapshot}`;
      }
      const { gameServer, claim } = gameServerManifest(profile, {
        namespace,
        name,
        labels,
        env,
        ...(fromSnapshot === undefined ? {} : { fromSnapshot }),
      });
      const created = (await custom.createNamespacedCustomObject({
        ...AGONES,
        namespace,
        plural: 'gameservers',
        body: gameServer,
      })) as AgonesGameServer;
      if (claim !== undefined) {
        try {
          await core.createNamespacedPersistentVolumeClaim({ namespace, body: claim(created.metadata?.uid ?? '') });
        } catch (err) {
          // Without its storage the server is not what was asked for: take it back, then say why.
          await custom
            .deleteNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', name })
            .catch((cleanup: unknown) => {
              request.log.warn(
                { err: { message: (cleanup as Error).message } },
                `could not remove game server ${namespace}/${name} whose storage failed`,
              );
            });
          throw err;
        }
      }
      await gameServers.waitFor(namespace, name, (o) => o?.metadata?.uid === created.metadata?.uid, SETTLE_MS);
      reply.header('location', `/api/v1/gameservers/${namespace}/${name}`);
      return reply.code(201).send(gameServerView(gameServers.get(namespace, name) ?? created));
    },
  });

  app.route({
    ...routeOf('deleteGameServer', [409]),
    schema: {
      tags: ['gameservers'],
      params: GameServerParams,
      querystring: Type.Object(
        {
          force: Type.Optional(
            Type.Boolean({ description: 'Needed to delete an Allocated game server: players are on it.' }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 204: Type.Null({ description: 'Deleted: Agones shuts it down and removes it (and its storage).' }) },
    },
    handler: async (request, reply) => {
      const { namespace, name } = request.params;
      // Read from the cluster, not the cache: the Allocated check guards players.
      const gs = (await custom
        .getNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', name })
        .catch((err: unknown) => {
          throw err instanceof NotFound ? new NotFound(`game server ${namespace}/${name} not found`) : err;
        })) as AgonesGameServer;
      if (stateOf(gs) === 'Allocated' && request.query.force !== true) {
        throw new Conflict(
          `game server ${namespace}/${name} is Allocated: players are on it. Delete it with ?force=true (Agones itself never removes an Allocated server)`,
        );
      }
      // Preconditions: a server allocated since it was read is not deleted without force.
      const body = { preconditions: { uid: gs.metadata?.uid, resourceVersion: gs.metadata?.resourceVersion } };
      await custom
        .deleteNamespacedCustomObject({ ...AGONES, namespace, plural: 'gameservers', name, body })
        .catch((err: unknown) => {
          if (err instanceof Conflict)
            throw new Conflict(
              `game server ${namespace}/${name} changed while being deleted; check its state and try again`,
            );
          throw err;
        });
      await gameServers.waitFor(
        namespace,
        name,
        (o) => o === undefined || o.metadata?.deletionTimestamp !== undefined,
        SETTLE_MS,
      );
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...routeOf('runAction', [409, 504]),
    bodyLimit: ARGS_BODY_LIMIT,
    schema: {
      tags: ['gameservers'],
      params: Type.Object({ namespace: Namespace, name: Name, action: ActionName }),
      body: ActionBody,
      response: { 200: ActionAnswer },
    },
    // The body is optional: most actions take no args.
    preValidation: async (request) => {
      if (request.body === undefined) request.body = {};
    },
    handler: async (request) => {
      const { namespace, name, action } = request.params;
      checkArgsSize(request.body.args ?? []);
      const gs = cached(namespace, name);
      const mayDelete = app.mayDo(request, DELETING_SHUTDOWN.permission, namespace);
      const planned = planAction(ctx, gs, action, request.body.args ?? [], { mayDelete });
      // Longer than the action may take, so the lock outlives it, and expires if this replica dies.
      const lock = await locks.acquire(`${namespace}/${name}`, planned.name, planned.timeoutMs + 10_000);
      if (!isHeld(lock)) {
        request.auditOutcome = 'refused: busy';
        throw new Conflict(
          `action ${lock.action} is already running on game server ${namespace}/${name}${lock.startedAt ? ` (since ${lock.startedAt})` : ''}; one action at a time`,
        );
      }
      try {
        const result = await planned.run();
        request.auditOutcome = planned.outcome(result);
        return result;
      } catch (err) {
        request.auditOutcome = (err as { statusCode?: number }).statusCode === 504 ? 'timeout' : 'failed';
        throw err;
      } finally {
        await lock.release();
      }
    },
  });
};

export default gameServerRoutes;
