import type { ReactNode } from 'react';
import { Time } from '@gsp/ui';
import type { CliAccess, Cluster, SwitchRecord } from '../api';

const SOURCES = new Map<string, string>([
  ['cluster', "this cluster's override"],
  ['platform', "the platform's value, set by a platform admin"],
  ['default', 'the built-in default'],
  ['env', 'pinned by SERVICE_CLI_ACCESS_ENABLED on the API server'],
]);

/** Who set the value: by name where the platform knows it (the subject on hover), with their role. */
function setBy(record: SwitchRecord | null, source: string): ReactNode {
  if (source === 'env') return 'The API server’s configuration';
  if (record === null) return 'Nobody (the default applies)';
  if (record.actor === null) return 'A platform admin';
  const who = record.actorName === undefined ? record.actor : <span title={record.actor}>{record.actorName}</span>;
  if (record.actorRole === 'platform-admin') return <>{who} (platform admin)</>;
  return record.actorRole === null ? (
    who
  ) : (
    <>
      {who} (tenant {record.actorRole})
    </>
  );
}

/** An RFC 3339 UTC instant as the API's sentences write it (kubectl's refusal says until when). */
const INSTANT = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/;

/** A sentence of the API's with each instant in it shown as every date on the page is (`Time`). */
function withTimes(sentence: string): ReactNode[] {
  // split with one capture group: the instants are the odd parts.
  return sentence.split(INSTANT).map((part, i) => (i % 2 === 1 ? <Time key={i} iso={part} /> : part));
}

/** A cluster's facts: its id, its CLI access and what decides it, and its agent. */
export function ClusterFacts({ cluster }: { cluster: Cluster }) {
  const { cliAccess: access, agent } = cluster;
  const record = access.record;
  const since = agent.since === null ? 'now' : <Time iso={agent.since} />;
  const facts: [label: string, value: ReactNode, className?: string][] = [
    ['ID', cluster.id, 'code'],
    ['CLI access', access.enabled ? 'On' : 'Off', access.enabled ? 'access access-on' : 'access access-off'],
    ['Source', SOURCES.get(access.source) ?? access.source],
    ['Set by', setBy(record, access.source)],
    ['Reason', record?.reason ?? 'None given'],
    ['Expires', record?.expiresAt ? <Time iso={record.expiresAt} /> : 'Never'],
    ['Agent', agent.connected ? <>Connected since {since}</> : 'Not connected'],
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
          {withTimes(access.message)}
        </p>
      )}
    </>
  );
}
