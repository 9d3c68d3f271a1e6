import { Type } from 'typebox';
import { envVars } from '../profiles/schema.js';
import { GameServerSchema } from './model.js';
import { DNS_LABEL_RULE, dnsLabel, dnsSubdomain, ListQuery, Name, Namespace } from '../http/params.js';

/** The schemas of the game-server routes: each validates, types the handler and documents the route. */
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
          'A VolumeSnapshot in this namespace, ready to use, ' +
          "that the new server's storage is restored from (its claim's dataSource).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListSchema = {
  tags: ['gameservers'],
  querystring: Type.Intersect([
    ListQuery,
    Type.Object({
      labelSelector: Type.Optional(Type.String({ maxLength: 1024 })),
      state: Type.Optional(Type.String({ maxLength: 32 })),
    }),
  ]),
  response: { 200: Type.Array(GameServerSchema) },
};

export const GetSchema = { tags: ['gameservers'], params: GameServerParams, response: { 200: GameServerSchema } };

export const CreateSchema = {
  tags: ['gameservers'],
  params: Type.Object({ namespace: Namespace }),
  body: CreateBody,
  response: { 201: GameServerSchema },
};

export const DeleteSchema = {
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
};
