/**
 * The three people of `npm start`'s development issuer, one for each kind of console user, with
 * passwords made once and kept in the data directory (so a browser's saved password keeps working).
 * The runner prints them and makes the tenant members; the issuer checks them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { persistentSecret } from '../auth.js';

/** The tenant the development users belong to: the runner's tenant `dev`. */
export const DEV_TENANT = 'dev';

export interface DevUser {
  login: string;
  /** The `name` claim, which the console shows for the user. */
  name: string;
  /** What the banner says the user is. */
  role: string;
  /** Their role in tenant DEV_TENANT; a platform admin needs none. */
  tenantRole?: 'admin' | 'viewer';
  platformAdmin: boolean;
  password: string;
}

/**
 * Logins that say what each user is, unlike `dev-admin`, the subject of the HS256 token the
 * banner prints (a bearer-token user that cannot sign in to the console).
 */
const USERS: readonly Omit<DevUser, 'password'>[] = [
  { login: 'platform-admin', name: 'Platform Admin', role: 'platform admin', platformAdmin: true },
  {
    login: 'tenant-admin',
    name: 'Tenant Admin',
    role: `admin of tenant "${DEV_TENANT}"`,
    tenantRole: 'admin',
    platformAdmin: false,
  },
  {
    login: 'tenant-viewer',
    name: 'Tenant Viewer',
    role: `viewer of tenant "${DEV_TENANT}"`,
    tenantRole: 'viewer',
    platformAdmin: false,
  },
];

/** The users with their passwords (`<dataDir>/dev-password-<login>`, 12 characters, made on first use). */
export function devUsers(dataDir: string): DevUser[] {
  return USERS.map((user) => ({ ...user, password: persistentSecret(dataDir, `dev-password-${user.login}`, 9) }));
}

/** The subject the API server gives a user of `issuer`: `<iss>#<sub>`, as its verifier builds it. */
export function subjectOf(issuer: string, login: string): string {
  return `${issuer}#${login}`;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The user whose login and password these are, or undefined. The password is compared in
 * constant time (as digests, so the length is not given away either), and an unknown login takes
 * the same comparison.
 */
export function checkPassword(users: readonly DevUser[], login: string, password: string): DevUser | undefined {
  const user = users.find((u) => u.login === login);
  const matches = timingSafeEqual(digest(password), digest(user?.password ?? `\0${password}`));
  return user !== undefined && matches ? user : undefined;
}
