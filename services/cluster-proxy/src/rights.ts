import { LoadingCache } from '@gsp/service-kit';
import {
  authorize,
  KUBECTL_PERMISSION,
  platformResource,
  readBindings,
  readClusterState,
  tenantResource,
} from '@gsp/platform-contract';
import type { AccessChange, ClusterState, Queryable, RoleBinding } from '@gsp/platform-contract';
import type { StaleMode } from './access.js';

/** Whether a kubeconfig's subject may still reach a cluster, and if not, what kubectl is told. */
export type Right = { allowed: true } | { allowed: false; status: 403 | 404 | 503; message: string };

const ALLOWED: Right = { allowed: true };

export interface RightsOptions {
  db: Queryable;
  platformId: string;
  /** Cache lifetime: changes reach this proxy within it even when no event arrives. */
  ttlMs: number;
  staleMode: StaleMode;
}

/**
 * The rights behind a kubeconfig, checked on every request: the cluster still exists, and the
 * token's subject still holds the kubectl permission (tenant admin or operator, or platform
 * admin). Both come from caches (a hit on the hot path), dropped by the API server's
 * `access.changed` events and expiring after `ttlMs` when no event comes.
 */
export class Rights {
  private readonly clusters: LoadingCache<string, ClusterState | undefined>;
  /** Keyed `org NUL subject`: subjects carry no control characters (the API and the proxy refuse them). */
  private readonly bindings: LoadingCache<string, RoleBinding[]>;
  private readonly platform: string;

  constructor(private readonly options: RightsOptions) {
    const cacheOptions = { ttlMs: options.ttlMs, retryAfterMs: 1000 };
    this.platform = platformResource(options.platformId);
    this.clusters = new LoadingCache((id) => readClusterState(options.db, id), cacheOptions);
    this.bindings = new LoadingCache((key) => {
      const [org, subject] = key.split('\0') as [string, string];
      return readBindings(options.db, subject, [this.platform, tenantResource(org)]);
    }, cacheOptions);
  }

  /** The cluster as last read; `undefined` once deleted. Throws when it cannot be read and nothing is known. */
  async cluster(clusterId: string): Promise<ClusterState | undefined> {
    const { value, stale } = await this.clusters.get(clusterId);
    if (stale && this.options.staleMode === 'strict')
      throw new Error('the cluster store cannot be read and the proxy runs in strict mode');
    return value;
  }

  /** May `subject` use kubectl on `clusterId`? Never throws: a store failure is a 503 refusal. */
  kubectl(clusterId: string, subject: string): Promise<Right> | Right {
    // The hot path: both answers cached and fresh, no promise created.
    const cluster = this.clusters.fresh(clusterId);
    if (cluster !== undefined) {
      const bindings = this.bindings.fresh(`${cluster.org}\0${subject}`);
      if (bindings !== undefined) return this.decide(clusterId, cluster, subject, bindings);
    }
    return this.check(clusterId, subject);
  }

  private async check(clusterId: string, subject: string): Promise<Right> {
    try {
      const cluster = await this.cluster(clusterId);
      if (cluster === undefined) return this.decide(clusterId, undefined, subject, []);
      const { value, stale } = await this.bindings.get(`${cluster.org}\0${subject}`);
      if (stale && this.options.staleMode === 'strict')
        throw new Error('the membership store cannot be read and the proxy runs in strict mode');
      return this.decide(clusterId, cluster, subject, value);
    } catch {
      return {
        allowed: false,
        status: 503,
        message: `access to cluster ${clusterId} cannot be checked right now; try again shortly`,
      };
    }
  }

  private decide(
    clusterId: string,
    cluster: ClusterState | undefined,
    subject: string,
    bindings: readonly RoleBinding[],
  ): Right {
    if (cluster === undefined)
      return {
        allowed: false,
        status: 404,
        message: `cluster ${clusterId} no longer exists: it was deleted from the platform`,
      };
    if (authorize(bindings, this.options.platformId, KUBECTL_PERMISSION, cluster.org)) return ALLOWED;
    return {
      allowed: false,
      status: 403,
      message:
        `${subject} no longer holds admin or operator in tenant ${cluster.org}; ` +
        'download a new kubeconfig once access is granted again',
    };
  }

  /** Drops what an `access.changed` event may have changed. */
  forget(change: AccessChange): void {
    if (change.kind === 'member') this.bindings.delete(`${change.org}\0${change.subject}`);
    else this.clusters.delete(change.clusterId);
  }

  /** Events may have been missed (a Redis reconnect): drop everything. */
  forgetAll(): void {
    this.clusters.clear();
    this.bindings.clear();
  }
}
