import type { ReactNode } from 'react';
import { formatTime } from '@gsp/ui';
import type { CliAccess, Cluster, SwitchRecord } from '../api';

const SOURCES = new Map<string, string>([
  ['cluster', "this cluster's override"],
  ['platform', "the platform's value, set by a platform admin"],
  ['default', 'the built-in default'],
  ['env', 'pinned by SERVICE_CLI_ACCESS_ENABLED on the API server'],
]);

function setBy(record: SwitchRecord | null, source: string): string {
  if (source === 'env') return 'The API server’s configuration';
  if (record === null) return 'Nobody (the default applies)';
  if (record.actor === null) return 'A platform admin';
  if (record.actorRole === 'platform-admin') return `${record.actor} (platform admin)`;
  return record.actorRole === null ? record.actor : `${record.actor} (tenant ${record.actorRole})`;
}

/** A cluster's facts: its id, its CLI access and what decides it, and its agent. */
export function ClusterFacts({ cluster }: { cluster: Cluster }) {
  const { cliAccess: access, agent } = cluster;
  const record = access.record;
  const since = agent.since === null ? 'now' : formatTime(agent.since);
  const facts: [label: string, value: ReactNode, className?: string][] = [
    ['ID', cluster.id, 'code'],
    ['CLI access', access.enabled ? 'On' : 'Off', access.enabled ? 'access access-on' : 'access access-off'],
    ['Source', SOURCES.get(access.source) ?? access.source],
    ['Set by', setBy(record, access.source)],
    ['Reason', record?.reason ?? 'None given'],
    ['Expires', record?.expiresAt ? formatTime(record.expiresAt) : 'Never'],
    ['Agent', agent.connected ? `Connected since ${since}` : 'Not connected'],
  ];
  return (
    <dl className="cluster-facts">
      {facts.map(([label, value, className]) => (
        <div key={label} className="fact">
          <dt>{label}</dt>
          <dd className={className}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Why the cluster's access may not be what its overrides say: a pin, or the refusal kubectl gets. */
export function AccessNotices({ access, refusalId }: { access: CliAccess; refusalId: string }) {
  return (
    <>
      {access.envPinned && (
        <p className="notice">
          SERVICE_CLI_ACCESS_ENABLED on the API server pins CLI access: overrides are stored but have no effect until it
          is unset.
        </p>
      )}
      {access.message !== null && (
        <p className="notice notice-warning" id={refusalId}>
          {access.message}
        </p>
      )}
    </>
  );
}
