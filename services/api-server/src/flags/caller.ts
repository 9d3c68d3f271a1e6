import { isPlatformAdmin, platformResource, readBindings } from '@gsp/platform-contract';
import type { Queryable } from '@gsp/platform-contract';
import { TtlCache } from '@gsp/service-kit';

/**
 * Whether a subject is a platform admin, remembered for a second: it decides whether a switch's
 * record names the platform admin who set it (only platform admins are told), not what anyone may do.
 */
export interface PlatformAdminCheck {
  (subject: string): Promise<boolean>;
  /** The answer remembered from the last second, without a promise; `undefined` when there is none. */
  remembered(subject: string): boolean | undefined;
}

export function platformAdminCheck(db: Queryable, platformId: string): PlatformAdminCheck {
  const resource = platformResource(platformId);
  const cache = new TtlCache<string, boolean>({ ttlMs: 1000, maxEntries: 10_000 });
  const check = async (subject: string): Promise<boolean> => {
    let admin = cache.get(subject);
    if (admin === undefined) {
      admin = isPlatformAdmin(await readBindings(db, subject, [resource]), platformId);
      cache.set(subject, admin);
    }
    return admin;
  };
  return Object.assign(check, { remembered: (subject: string) => cache.get(subject) });
}
