import type pg from 'pg';
import { CLI_ACCESS_ENABLED, findFlag } from '@gsp/flags-client';
import type { FlagDefinition, FlagScopeType } from '@gsp/flags-client';
import {
  isPlatformAdmin,
  PLATFORM_ADMIN_ACTOR,
  platformResource,
  readBindings,
  reasonProblem,
  tenantResource,
  tenantRole,
} from '@gsp/platform-contract';
import type { FlagEventScope } from '@gsp/platform-contract';
import { InvalidRequestError } from '@gsp/service-kit';
import type { FieldError } from '@gsp/service-kit';
import { Forbidden, NotFound } from '../errors.js';
import { existingCluster } from '../cluster-store/store.js';
import { platformOffImpact } from '../console-bff/impact.js';
import type { PlatformOffImpact } from '../console-bff/impact.js';
import { platformAdminCheck } from './caller.js';
import type { PlatformAdminCheck } from './caller.js';
import { parseExpiry } from './record.js';
import type { FlagListItem, FlagService, WriteResult } from './service.js';
import type { SetBody } from './schemas.js';

/** The console's typed confirmation of a platform-wide off: the platform id, in this header. */
export const CONFIRM_HEADER = 'x-gsp-confirm';

/** How a platform-wide write arrived: through the console's session, with what confirmation header. */
export interface Via {
  consoleSession: boolean;
  confirmation: string | string[] | undefined;
}

/** A cluster as its routes name it (`/tenants/:org/clusters/:id`), and one of its flags. */
export interface ClusterRef {
  org: string;
  id: string;
}
export interface ClusterFlagRef extends ClusterRef {
  flag: string;
}

const PLATFORM: FlagEventScope = { type: 'platform' };

/** The reason and expiry of a PUT, checked: a 400 names each rule broken. */
function checkedRecord(body: SetBody): { reason?: string; expiresAt?: number } {
  const errors: FieldError[] = [];
  const out: { reason?: string; expiresAt?: number } = {};
  if (body.reason !== undefined) {
    const problem = reasonProblem(body.reason);
    if (problem !== undefined) errors.push({ in: 'body', pointer: '#/reason', detail: problem });
    else out.reason = body.reason;
  }
  if (body.expiresAt !== undefined) {
    const expiry = parseExpiry(body.expiresAt, Date.now());
    if ('problem' in expiry) errors.push({ in: 'body', pointer: '#/expiresAt', detail: expiry.problem });
    else out.expiresAt = expiry.at;
  }
  if (errors.length > 0) throw new InvalidRequestError(errors);
  return out;
}

function flagOrThrow(key: string, scope: FlagScopeType): FlagDefinition {
  const flag = findFlag(key);
  if (!flag || !flag.scopes.includes(scope))
    throw new NotFound(`unknown feature flag ${key}${flag ? ` at ${scope} scope` : ''}`);
  return flag;
}

/**
 * What the feature-flag routes ask of the flag service, with the caller named explicitly: the
 * flag and the cluster looked up (404), the record checked (400), the writer's role as records
 * keep it, and whether the answer may name platform admins.
 */
export class FlagRequests {
  private readonly isAdmin: PlatformAdminCheck;

  constructor(
    private readonly db: pg.Pool,
    private readonly flags: FlagService,
    private readonly platformId: string,
  ) {
    this.isAdmin = platformAdminCheck(db, platformId);
  }

  /**
   * Not async: the hot path answers from memory without a promise. A value to read, or a record
   * whose actor depends on who asks, takes the async path.
   */
  platformList(subject: string): { flags: FlagListItem[] } | Promise<{ flags: FlagListItem[] }> {
    const flags = this.flags.listFromMemory(PLATFORM, this.isAdmin.remembered(subject));
    if (flags !== undefined) return { flags };
    return (async () => {
      const anonymous = await this.flags.list(PLATFORM, false);
      if (!anonymous.some((item) => item.platformRecord?.actor === null)) return { flags: anonymous };
      // Flag reads outlive a database outage (the flags client serves the last values seen);
      // whether the caller may see a platform admin's name is not worth a 503: then it is not shown.
      const admin = await this.isAdmin(subject).catch(() => false);
      return { flags: admin ? await this.flags.list(PLATFORM, true) : anonymous };
    })();
  }

  async setPlatform(actor: string, key: string, body: SetBody, via: Via, requestId: string): Promise<WriteResult> {
    const flag = flagOrThrow(key, 'platform');
    // The console's confirmation is enforced here, not only in the page; bearer calls are as the spec says.
    if (via.consoleSession && flag.key === CLI_ACCESS_ENABLED && !body.value) {
      if (via.confirmation !== this.platformId)
        throw new Forbidden(
          `switching ${flag.key} off for the whole platform from the console needs the typed confirmation: ` +
            `the header X-GSP-Confirm: ${this.platformId}`,
        );
    }
    const record = checkedRecord(body);
    const write = { flag, scope: PLATFORM, value: body.value, ...record };
    return this.flags.write({
      ...write,
      actor,
      actorRole: PLATFORM_ADMIN_ACTOR,
      requestId,
      callerIsPlatformAdmin: true,
    });
  }

  async clearPlatform(actor: string, key: string, requestId: string): Promise<WriteResult> {
    const flag = flagOrThrow(key, 'platform');
    const write = { flag, scope: PLATFORM, value: null };
    return this.flags.write({
      ...write,
      actor,
      actorRole: PLATFORM_ADMIN_ACTOR,
      requestId,
      callerIsPlatformAdmin: true,
    });
  }

  async platformOffImpact(key: string): Promise<PlatformOffImpact & { platformId: string }> {
    return { platformId: this.platformId, ...(await platformOffImpact(this.db, flagOrThrow(key, 'platform').key)) };
  }

  async clusterList(subject: string, { org, id }: ClusterRef): Promise<{ flags: FlagListItem[] }> {
    const scope = await this.clusterScope(org, id);
    return { flags: await this.flags.list(scope, await this.isAdmin(subject)) };
  }

  async setCluster(actor: string, at: ClusterFlagRef, body: SetBody, requestId: string): Promise<WriteResult> {
    const flag = flagOrThrow(at.flag, 'cluster');
    const record = checkedRecord(body);
    return this.writeCluster(actor, at, { flag, value: body.value, ...record }, requestId);
  }

  async clearCluster(actor: string, at: ClusterFlagRef, requestId: string): Promise<WriteResult> {
    return this.writeCluster(actor, at, { flag: flagOrThrow(at.flag, 'cluster'), value: null }, requestId);
  }

  private async writeCluster(
    actor: string,
    { org, id }: ClusterRef,
    write: { flag: FlagDefinition; value: boolean | null; reason?: string; expiresAt?: number },
    requestId: string,
  ): Promise<WriteResult> {
    const scope = await this.clusterScope(org, id);
    const actorRole = await this.actorRole(actor, org);
    const callerIsPlatformAdmin = actorRole === PLATFORM_ADMIN_ACTOR;
    return this.flags.write({ ...write, scope, actor, actorRole, requestId, callerIsPlatformAdmin });
  }

  private async clusterScope(org: string, id: string): Promise<FlagEventScope> {
    const cluster = await existingCluster(this.db, org, id);
    return { type: 'cluster', org, clusterId: cluster.id };
  }

  /** What the writer is, as records keep it: `platform-admin` or the tenant role. */
  private async actorRole(actor: string, org: string): Promise<string> {
    const bindings = await readBindings(this.db, actor, [platformResource(this.platformId), tenantResource(org)]);
    if (isPlatformAdmin(bindings, this.platformId)) return PLATFORM_ADMIN_ACTOR;
    const role = tenantRole(bindings, org);
    // The route's permission check passed a moment ago; a role removed since is a refusal.
    if (role === undefined) throw new Forbidden('this requires a role in the tenant');
    return role;
  }
}
