import { Type } from 'typebox';
import { DISPLAY_NAME_MAX_LENGTH } from './display-name.js';

const RETURN_TO_MAX_LENGTH = 2048;

export const LoginQuery = Type.Object({
  returnTo: Type.Optional(
    Type.String({
      maxLength: RETURN_TO_MAX_LENGTH,
      description: "a path of the console (under CONSOLE_PUBLIC_URL's path) to open after signing in",
    }),
  ),
});
export const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 1024 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 1024 })),
});
export const SessionSchema = Type.Object({
  signedIn: Type.Boolean(),
  subject: Type.Optional(Type.String({ description: 'as role bindings name it: `<issuer>#<sub>`' })),
  name: Type.Optional(
    Type.String({
      maxLength: DISPLAY_NAME_MAX_LENGTH,
      description:
        "what to call the user: the ID token's `name`, else `email`, else `preferred_username` " +
        "(or the provider's user info when the ID token has none), else the subject; one line, no control characters",
    }),
  ),
  expiresAt: Type.Optional(Type.String({ description: "RFC 3339: the ID token's expiry, when the session ends" })),
});
export const redirect = { 303: { description: 'to the identity provider, or back to the console', type: 'null' } };
