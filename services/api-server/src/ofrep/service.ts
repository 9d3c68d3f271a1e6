import { FLAGS, findFlag } from '@gsp/flags-client';
import type { FlagChange, FlagsClient } from '@gsp/flags-client';
import { authorize, platformResource, readBindings, tenantResource } from '@gsp/platform-contract';
import type { Queryable } from '@gsp/platform-contract';
import type { FastifyBaseLogger } from 'fastify';
import { Forbidden } from '../errors.js';
import { findCluster } from '../cluster-store/store.js';
import { OfrepRequestError, parseContext, requestContext, toEvaluationSuccess } from './evaluation.js';
import type { OfrepContext } from './evaluation.js';
import type { BulkEvaluationSuccess, EvaluationSuccess } from './schemas.js';

/** Who asked, for the log line of a flag a bulk evaluation could not evaluate. */
export interface Asker {
  id: string;
  log: FastifyBaseLogger;
}

/**
 * OFREP evaluation over our flag registry, read through the same cached flags client as
 * everything else, for a subject named explicitly: a context naming a tenant needs a role in it.
 */
export class OfrepService {
  constructor(
    private readonly db: Queryable,
    private readonly client: FlagsClient,
    private readonly platformId: string,
  ) {}

  /** One flag in the `context` of a request body; undefined when no flag has that key (FLAG_NOT_FOUND). */
  async single(subject: string, key: string, body: unknown): Promise<EvaluationSuccess | undefined> {
    const raw = requestContext(body);
    if (!findFlag(key)) return undefined;
    const context = parseContext(raw);
    await this.checkAccess(subject, context);
    return this.evaluate(key, context);
  }

  /** Every flag; one that cannot be evaluated is an error entry of its own, logged, not a failed request. */
  async bulk(subject: string, context: OfrepContext, asker: Asker): Promise<BulkEvaluationSuccess['flags']> {
    await this.checkAccess(subject, context);
    return Promise.all(
      FLAGS.map(async (flag) => {
        try {
          return await this.evaluate(flag.key, context);
        } catch (err) {
          asker.log.error({ err, flag: flag.key }, 'OFREP bulk evaluation of one flag failed');
          return {
            key: flag.key,
            errorCode: 'GENERAL',
            errorDetails: `quote request id ${asker.id} when reporting it`,
          };
        }
      }),
    );
  }

  /** A context naming a tenant needs a role in it; one naming a cluster needs that cluster to exist there. */
  async checkAccess(subject: string, context: OfrepContext): Promise<void> {
    if (context.org === undefined) return;
    const rows = await readBindings(this.db, subject, [platformResource(this.platformId), tenantResource(context.org)]);
    // Every tenant role may read; so may a platform admin.
    if (!authorize(rows, this.platformId, 'tenant.read', context.org))
      throw new Forbidden(`no role in tenant ${context.org}`);
    if (context.clusterId !== undefined && !(await findCluster(this.db, context.org, context.clusterId))) {
      throw new OfrepRequestError(
        400,
        'INVALID_CONTEXT',
        `cluster ${context.clusterId} does not exist in tenant ${context.org}`,
      );
    }
  }

  /**
   * Calls `refetch` when a committed write may have changed a value in `context`: once per turn of
   * the event loop, however many flags one write touched. Returns the unsubscribe.
   */
  watch(context: OfrepContext, refetch: () => void): () => void {
    let pending = false;
    const onChange = (change: FlagChange) => {
      if (change.scope.type === 'cluster' && change.scope.clusterId !== context.clusterId) return;
      if (pending) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        refetch();
      });
    };
    const unsubscribes = FLAGS.map((flag) => this.client.onChange(flag.key, onChange));
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  private async evaluate(key: string, context: OfrepContext): Promise<EvaluationSuccess> {
    return toEvaluationSuccess(key, await this.client.evaluateDetailed(key, context));
  }
}
