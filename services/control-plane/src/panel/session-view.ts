import type { Principal } from '../auth/principal.js';
import type { Roles } from '../rbac/roles.js';
import { permissionsOf } from './permissions.js';
import type { PanelGrant } from './permissions.js';

/** Which ways of signing in the panel offers. */
export interface SignInMethods {
  oidc: boolean;
  basic: boolean;
  apikey: boolean;
}

export type SessionView =
  | { signedIn: false; methods: SignInMethods }
  | {
      signedIn: true;
      methods: SignInMethods;
      userId: string;
      username: string;
      role: string | null;
      authMethod: Principal['method'];
      /** RFC 3339; null when the credential does not end by itself. */
      expiresAt: string | null;
      permissions: PanelGrant[];
    };

/** What `GET /panel/auth/session` answers for `principal` (null: nobody signed in). */
export function sessionView(principal: Principal | null, methods: SignInMethods, roles: Roles): SessionView {
  if (principal === null) return { signedIn: false, methods };
  return {
    signedIn: true,
    methods,
    userId: principal.userId,
    username: principal.username,
    role: principal.role ?? null,
    authMethod: principal.method,
    expiresAt: principal.expiresAt === undefined ? null : new Date(principal.expiresAt).toISOString(),
    permissions: permissionsOf(principal.role === undefined ? undefined : roles.get(principal.role)),
  };
}
