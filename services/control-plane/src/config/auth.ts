import {
  booleanVar,
  ConfigError,
  clockToleranceVar,
  durationVar,
  nonEmpty,
  parseUrl,
  readFileVar,
  readSecret,
  required,
} from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { loadRoles, RoleDefinitionError } from '../rbac/roles.js';
import type { Roles } from '../rbac/roles.js';

export const AUTH_MODES = ['none', 'basic', 'apikey', 'oidc'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface BasicConfig {
  user: string;
  /** Set when AUTH_BASIC_PASSWORD was given: the app hashes it at start and keeps only the hash. */
  password?: string | undefined;
  passwordHash?: string | undefined;
  role: string;
}

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  roleClaim: string;
  /** Claim value -> role name. */
  roleMapping: ReadonlyMap<string, string>;
  jwksCooldownMs: number;
  /** `AUTH_CLOCK_TOLERANCE`: how long after its `exp` (or before its `nbf`) a token is still accepted. */
  clockToleranceMs: number;
}

/** `AUTH_MODE` (a list) and `AUTH_*_ENABLED`: at least one mode, and `none` alone. */
export function readModes(env: Env): Set<AuthMode> {
  const listed = (nonEmpty(env, 'AUTH_MODE') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  for (const mode of listed) {
    if (!(AUTH_MODES as readonly string[]).includes(mode))
      throw new ConfigError('AUTH_MODE', `unknown mode ${JSON.stringify(mode)} (known: ${AUTH_MODES.join(', ')})`);
  }
  const modes = new Set<AuthMode>(listed as AuthMode[]);
  if (booleanVar(env, 'AUTH_BASIC_ENABLED', false)) modes.add('basic');
  if (booleanVar(env, 'AUTH_APIKEY_ENABLED', false)) modes.add('apikey');
  if (booleanVar(env, 'AUTH_OIDC_ENABLED', false)) modes.add('oidc');
  if (modes.size === 0) {
    throw new ConfigError(
      'AUTH_MODE',
      'no authentication mode is on: list basic, apikey or oidc (or none for development) in AUTH_MODE, ' +
        'or set AUTH_*_ENABLED=true',
    );
  }
  if (modes.has('none') && modes.size > 1) {
    throw new ConfigError('AUTH_MODE', `"none" cannot be combined with other modes (on: ${[...modes].join(', ')})`);
  }
  return modes;
}

/** The built-in roles and those of `RBAC_ROLES_FILE`, if set. */
export function readRoles(env: Env): Roles {
  const text = readFileVar(env, 'RBAC_ROLES_FILE');
  try {
    return loadRoles(text);
  } catch (err) {
    if (err instanceof RoleDefinitionError) throw new ConfigError('RBAC_ROLES_FILE', err.message);
    throw err;
  }
}

function knownRole(roles: Roles, variable: string, name: string): string {
  if (!roles.has(name))
    throw new ConfigError(variable, `unknown role ${JSON.stringify(name)} (known: ${roles.names().join(', ')})`);
  return name;
}

/** `AUTH_BASIC_*`, read when basic authentication is on: one user, a password or its bcrypt hash, a role. */
export function readBasic(env: Env, roles: Roles): BasicConfig {
  const user = nonEmpty(env, 'AUTH_BASIC_USER');
  const password = readSecret(env, 'AUTH_BASIC_PASSWORD');
  const passwordHash = readSecret(env, 'AUTH_BASIC_PASSWORD_HASH');
  if (user === undefined) throw new ConfigError('AUTH_BASIC_USER', 'is required when basic authentication is on');
  if (password === undefined && passwordHash === undefined) {
    throw new ConfigError(
      'AUTH_BASIC_PASSWORD',
      'AUTH_BASIC_PASSWORD or AUTH_BASIC_PASSWORD_HASH is required when basic authentication is on',
    );
  }
  if (password !== undefined && passwordHash !== undefined)
    throw new ConfigError('AUTH_BASIC_PASSWORD', 'set AUTH_BASIC_PASSWORD or AUTH_BASIC_PASSWORD_HASH, not both');
  if (passwordHash !== undefined && !/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(passwordHash)) {
    throw new ConfigError('AUTH_BASIC_PASSWORD_HASH', 'must be a bcrypt hash ($2b$10$...)');
  }
  return {
    user,
    password,
    passwordHash,
    role: knownRole(roles, 'AUTH_BASIC_ROLE', nonEmpty(env, 'AUTH_BASIC_ROLE') ?? 'admin'),
  };
}

/** `AUTH_OIDC_ROLE_MAPPING`: `claimValue=role` pairs separated by commas, each role a known one. */
function readRoleMapping(env: Env, roles: Roles): Map<string, string> {
  const roleMapping = new Map<string, string>();
  for (const pair of (nonEmpty(env, 'AUTH_OIDC_ROLE_MAPPING') ?? '').split(',').filter((p) => p.trim() !== '')) {
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at <= 0 || value === '' || role === '')
      throw new ConfigError(
        'AUTH_OIDC_ROLE_MAPPING',
        `expected claimValue=role pairs separated by commas, got ${JSON.stringify(pair)}`,
      );
    roleMapping.set(value, knownRole(roles, 'AUTH_OIDC_ROLE_MAPPING', role));
  }
  return roleMapping;
}

/** `AUTH_OIDC_*`, read when oidc authentication is on: the issuer, the client tokens are issued to, the roles. */
export function readOidc(env: Env, roles: Roles): OidcConfig {
  const issuerUrl = required(
    parseUrl(env, 'AUTH_OIDC_ISSUER_URL', ['https:', 'http:']),
    'AUTH_OIDC_ISSUER_URL',
    'is required when oidc authentication is on',
  );
  const clientId = required(
    nonEmpty(env, 'AUTH_OIDC_CLIENT_ID'),
    'AUTH_OIDC_CLIENT_ID',
    'is required when oidc authentication is on (tokens are checked to be issued to it)',
  );
  const roleMapping = readRoleMapping(env, roles);
  return {
    issuerUrl,
    clientId,
    roleClaim: nonEmpty(env, 'AUTH_OIDC_ROLE_CLAIM') ?? 'roles',
    roleMapping,
    jwksCooldownMs: durationVar(env, 'AUTH_OIDC_JWKS_COOLDOWN', 30_000, 0),
    clockToleranceMs: clockToleranceVar(env),
  };
}
