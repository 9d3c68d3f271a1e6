import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../rbac/table.js';
import { dnsLabel } from '../http/params.js';
import { ApiKeyService } from './service.js';
import type { ApiKeyServiceOptions } from './service.js';

const CreateBody = Type.Object(
  {
    name: dnsLabel(),
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

const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyServiceOptions> = async (app, opts) => {
  const store = app.apikeys;
  const keys = new ApiKeyService(store, opts);

  // Served from the informer's index (a 503 until it has loaded), never a Kubernetes round trip.
  app.route({
    ...routeOf('listApiKeys'),
    schema: { response: { 200: KeyList } },
    handler: async () => keys.list(),
  });

  app.route({
    // 409: a key of that name exists.
    ...routeOf('createApiKey', [409]),
    schema: { body: CreateBody, response: { 201: CreatedKey } },
    handler: async (request, reply) => {
      const { answer, pending } = await keys.create(request.principal, request.body);
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
      return reply.code(201).send({ ...answer, warning: WARNING });
    },
  });

  app.route({
    // 409: the Secret was replaced between the check and the delete.
    ...routeOf('deleteApiKey', [409]),
    schema: { params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 63 }) }), response: { 204: Revoked } },
    handler: async (request, reply) => {
      await keys.revoke(request.principal, request.params.name);
      return reply.code(204).send(null);
    },
  });
};

export default apiKeyRoutes;
