import { Type } from 'typebox';
import { RESOURCES, VERBS } from '../rbac/roles.js';

const Methods = Type.Object({ oidc: Type.Boolean(), basic: Type.Boolean(), apikey: Type.Boolean() });
const SignedOut = Type.Object({ signedIn: Type.Literal(false), methods: Methods });
const SignedIn = Type.Object({
  signedIn: Type.Literal(true),
  methods: Methods,
  userId: Type.String(),
  username: Type.String(),
  role: Type.Union([Type.String(), Type.Null()]),
  authMethod: Type.Union([Type.Literal('oidc'), Type.Literal('basic'), Type.Literal('apikey'), Type.Literal('none')]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  permissions: Type.Array(
    Type.Object({
      resource: Type.String({ description: `one of ${RESOURCES.join(', ')}` }),
      verb: Type.String({ description: `one of ${VERBS.join(', ')}` }),
      namespaces: Type.Union([Type.Literal('*'), Type.Array(Type.String())]),
    }),
  ),
});

/** `GET /panel/auth/session`: signed out with the ways to sign in, or who is signed in and what they may do. */
export const SessionAnswer = Type.Union([SignedOut, SignedIn]);

/** `POST /panel/auth/sign-in`: a Basic user and password, or an API key. */
export const SignInBody = Type.Union([
  Type.Object(
    {
      method: Type.Literal('basic'),
      username: Type.String({ minLength: 1, maxLength: 256 }),
      password: Type.String({ minLength: 1, maxLength: 1024 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { method: Type.Literal('apikey'), key: Type.String({ minLength: 1, maxLength: 256 }) },
    { additionalProperties: false },
  ),
]);

/** A 204: signed in or out, the answer is the cookie. */
export const NoContent = Type.Null({ description: 'the Set-Cookie header carries the answer' });
