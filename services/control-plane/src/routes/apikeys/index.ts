import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../table.js';
import { generateKey, MAX_KEY_TTL_MS, MAX_KEY_TTL_TEXT, toLabelValue } from '../../apikeys/keys.js';
import { AlreadyExistsError, ReplacedError } from '../../apikeys/store.js';
import type { ApiKeyMetadata, PendingKey } from '../../apikeys/store.js';
import type { Roles } from '../../rbac/roles.js';
import { parseDuration } from '@gsp/service-kit';
import { BadRequest, Conflict, Forbidden, NotFound, Unauthorized } from '../../errors.js';

export interface ApiKeyRouteOptions {
  keyPrefix: string;
  roles: Roles;
  maxTtlMs: number | undefined;
}

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    expiresIn: Type.Optional(Type.String({ pattern: '^[0-9]+(s|m|h|d)$' })),
  },
  { additionalProperties: false },
);

/** An item of the list (spec section 2), never the key's value; `expiresAt` and `lastUsedAt` when known. */
const KeyItem = Type.Object({
  name: Type.String(),
  userId: Type.String(),
  username: Type.String(),
  role: Type.String(),
  createdAt: Type.String({ description: 'ISO 8601 UTC' }),
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 UTC; the key stops authenticating then' })),
  lastUsedAt: Type.Optional(Type.String({ description: 'ISO 8601 UTC, recorded at most every five minutes' })),
});

const KeyList = Type.Array(KeyItem, { description: 'every API key, sorted by name' });

const CreatedKey = Type.Object(
  {
    name: Type.String(),
    role: Type.String(),
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
    expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
    key: Type.String({ description: 'the key to send as X-API-Key; shown in this response only' }),
    warning: Type.String(),
  },
  { description: 'the key created, with its value' },
);

const Revoked = Type.Null({
  description: 'revoked; other replicas refuse the key once their watch brings the deletion',
});

// Only what the API promises: the value stays in the key's Secret, readable by whoever may read Secrets there.
const WARNING = 'Store this key now: it is shown only once, in this response; the API never shows it again.';

const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyRouteOptions> = async (app, opts) => {
  const store = app.apikeys;
  const maxName = 63 - `${opts.keyPrefix}-apikey-`.length;

  // Served from the informer's index (a 503 until it has loaded), never a Kubernetes round trip.
  app.route({
    ...routeOf('listApiKeys'),
    schema: { response: { 200: KeyList } },
    handler: async () =>
      store.list().map((r) => ({
        name: r.name,
        userId: r.userId,
        username: r.username,
        role: r.role,
        createdAt: r.createdAt,
        ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
        ...(r.lastUsedAt ? { lastUsedAt: r.lastUsedAt } : {}),
      })),
  });

  app.route({
    // 409: a key of that name exists.
    ...routeOf('createApiKey', [409]),
    schema: { body: CreateBody, response: { 201: CreatedKey } },
    handler: async (request, reply) => {
      const caller = request.principal;
      if (!caller?.role) throw new Unauthorized('authentication is required');
      const { name, expiresIn } = request.body;
      if (name.length > maxName)
        throw new BadRequest(
          `name must be at most ${maxName} characters, so that the Secret name ${opts.keyPrefix}-apikey-<name> fits in 63`,
        );
      const role = request.body.role ?? caller.role;
      if (!opts.roles.has(role)) throw new BadRequest(`unknown role ${JSON.stringify(role)}`);
      if (!opts.roles.covers(caller.role, role))
        throw new Forbidden(`role ${caller.role} may not create a key with role ${role}`);
      const now = new Date();
      const maxTtlMs = opts.maxTtlMs ?? MAX_KEY_TTL_MS;
      const ttlMs = expiresIn === undefined ? opts.maxTtlMs : parseDuration(expiresIn);
      if (expiresIn !== undefined && (ttlMs === undefined || ttlMs < 1000 || ttlMs > maxTtlMs)) {
        const limit = opts.maxTtlMs === undefined ? MAX_KEY_TTL_TEXT : `${opts.maxTtlMs / 1000}s (APIKEY_MAX_TTL)`;
        throw new BadRequest(
          `expiresIn must be a duration from 1s to ${limit}, such as 30d; got ${JSON.stringify(expiresIn)}`,
        );
      }
      const expiresAt = ttlMs === undefined ? undefined : new Date(now.getTime() + ttlMs).toISOString();
      const meta: ApiKeyMetadata = {
        name,
        role,
        userId: caller.userId,
        username: caller.username,
        createdAt: now.toISOString(),
        ...(expiresAt ? { expiresAt } : {}),
      };
      const key = generateKey(opts.keyPrefix);
      let pending: PendingKey;
      try {
        pending = await store.create(key, meta, toLabelValue(caller.username));
      } catch (err) {
        if (err instanceof AlreadyExistsError) throw new Conflict(err.message);
        throw err;
      }
      // The key becomes valid once its value has been handed over, never before: a response
      // that is not sent in full leaves a key nobody saw, and that one is removed.
      let sent = false;
      reply.raw.once('finish', () => {
        sent = reply.statusCode === 201;
        if (sent) store.confirm(pending);
      });
      reply.raw.once('close', () => {
        if (!sent) store.abandon(pending);
      });
      return reply
        .code(201)
        .send({ name, role, createdAt: meta.createdAt, ...(expiresAt ? { expiresAt } : {}), key, warning: WARNING });
    },
  });

  app.route({
    // 409: the Secret was replaced between the check and the delete.
    ...routeOf('deleteApiKey', [409]),
    schema: { params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 63 }) }), response: { 204: Revoked } },
    handler: async (request, reply) => {
      const caller = request.principal;
      if (!caller?.role) throw new Unauthorized('authentication is required');
      const { name } = request.params;
      // Read from the API server, not the index: a replica still syncing must not skip the check below.
      const stored = await store.get(name);
      if (stored === undefined) throw new NotFound(`API key ${name} not found`);
      // The rule of creation: only a key whose role the caller's covers. A role this configuration
      // does not know (or metadata that cannot be read) grants nothing, so any key manager may revoke it.
      const role = stored.record?.role;
      if (role !== undefined && opts.roles.has(role) && !opts.roles.covers(caller.role, role)) {
        const rule = 'only keys of roles it covers';
        throw new Forbidden(`role ${caller.role} may not revoke API key ${name} with role ${role}: ${rule}`);
      }
      try {
        if (!(await store.delete(name, stored.uid))) throw new NotFound(`API key ${name} not found`);
      } catch (err) {
        if (err instanceof ReplacedError) throw new Conflict(`${err.message}; try again`);
        throw err;
      }
      return reply.code(204).send(null);
    },
  });
};

export default apiKeyRoutes;
