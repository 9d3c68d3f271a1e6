import { hostname } from 'node:os';
import { ConfigError, durationVar, integerVar, nonEmpty } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';

export interface AuditSpoolConfig {
  /** `AUDIT_SPOOL_DIR` */
  dir: string;
  /** `AUDIT_SPOOL_MAX_BYTES` */
  maxBytes: number;
  /** `AUDIT_SPOOL_FULL`: `block` answers 503 until there is room again (fail closed); `drop` serves on and counts. */
  full: 'block' | 'drop';
  /** `AUDIT_SPOOL_DRAIN`: at shutdown, how long the sinks may go on taking what is in the spool. */
  drainMs: number;
}

/** A replica id: a pod or host name (no control characters, a DNS name's length at most). */
const REPLICA_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/;

export function readAuditSpool(env: Env): AuditSpoolConfig {
  const full = nonEmpty(env, 'AUDIT_SPOOL_FULL') ?? 'block';
  if (full !== 'block' && full !== 'drop')
    throw new ConfigError('AUDIT_SPOOL_FULL', `must be "block" or "drop", got ${JSON.stringify(full)}`);
  return {
    dir: nonEmpty(env, 'AUDIT_SPOOL_DIR') ?? '.data/control-plane/audit-spool',
    maxBytes: integerVar(env, 'AUDIT_SPOOL_MAX_BYTES', 256 * 1024 * 1024, { min: 64 * 1024 }),
    full,
    drainMs: durationVar(env, 'AUDIT_SPOOL_DRAIN', 10_000, 0),
  };
}

/** `REPLICA_ID`, else the host name (a pod's name in Kubernetes). */
export function readReplicaId(env: Env): string {
  const id = nonEmpty(env, 'REPLICA_ID') ?? hostname();
  if (!REPLICA_ID.test(id))
    throw new ConfigError('REPLICA_ID', 'must be a pod or host name: letters, digits, ".", "_" and "-", at most 253');
  return id;
}
