import type { FastifyRequest } from 'fastify';

/** What a handler adds to its request's audit line. */
export interface AuditDetails {
  /** What the request acted on when its path does not say it all (a create names its object in the body). */
  target?: string;
  /** How the request's work ended (`exit 0`, `timeout`, `game server deleted`...). */
  outcome?: string;
}

/**
 * The one way a handler tells the audit line (plugins/audit.ts) what its path cannot: the target
 * and the outcome. A field left out keeps what was set before; the line is written when the
 * response ends, so a streamed answer may set its outcome until then.
 */
export function setAudit(request: FastifyRequest, details: AuditDetails): void {
  if (details.target !== undefined) request.auditTarget = details.target;
  if (details.outcome !== undefined) request.auditOutcome = details.outcome;
}
