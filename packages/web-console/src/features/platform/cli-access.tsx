import { useCallback, useState } from 'react';
import type { ReactNode } from 'react';
import { ErrorNotice, Loading, Facts, Panel, Time, useLoad } from '@gsp/ui';
import { loadPlatformCliAccess } from './api';
import type { PlatformFlag } from './api';
import { SwitchOffDialog, SwitchOnDialog } from './switch-dialogs';

const SOURCES = new Map<PlatformFlag['source'], string>([
  ['env', 'pinned by SERVICE_CLI_ACCESS_ENABLED on the API server'],
  ['platform', 'set by a platform admin'],
  ['cluster', "a cluster's override"],
  ['default', 'the built-in default'],
]);

/** Who set the platform's value: by name where the platform knows it, the subject on hover. */
function setBy(record: PlatformFlag['platformRecord']): ReactNode {
  if (record === null) return 'Nobody (the default applies)';
  if (record.actor === null) return 'A platform admin';
  return record.actorName === undefined ? record.actor : <span title={record.actor}>{record.actorName}</span>;
}

function Details({ flag }: { flag: PlatformFlag }) {
  const record = flag.platformRecord;
  return (
    <>
      <p className={flag.value ? 'state state-on' : 'state state-off'}>
        CLI access is <strong>{flag.value ? 'on' : 'off'}</strong> for the platform.
      </p>
      {flag.envPinned && (
        <p className="notice">
          SERVICE_CLI_ACCESS_ENABLED pins this value: changes made here are stored but have no effect until it is unset.
        </p>
      )}
      <Facts
        items={[
          ['Source', SOURCES.get(flag.source) ?? flag.source],
          ['Set by', setBy(record)],
          ['Reason', record?.reason ?? 'None given'],
          ['Expires', record?.expiresAt ? <Time iso={record.expiresAt} /> : 'Never'],
          ...(record ? ([['Set at', <Time key="set-at" iso={record.setAt} />]] as [string, ReactNode][]) : []),
        ]}
      />
    </>
  );
}

function Controls({ flag, onChanged }: { flag: PlatformFlag; onChanged: () => void }) {
  const [open, setOpen] = useState<'off' | 'on' | undefined>();
  const close = useCallback(() => setOpen(undefined), []);
  const done = () => {
    setOpen(undefined);
    onChanged();
  };
  return (
    <div className="actions">
      {flag.platformRecord?.value !== false && (
        <button type="button" className="button button-danger" onClick={() => setOpen('off')}>
          Switch off
        </button>
      )}
      {flag.platformRecord !== null && (
        <button type="button" className="button" onClick={() => setOpen('on')}>
          {flag.platformRecord.value ? 'Clear the platform value' : 'Switch back on'}
        </button>
      )}
      {open === 'off' && <SwitchOffDialog onClose={close} onDone={done} />}
      {open === 'on' && <SwitchOnDialog onClose={close} onDone={done} />}
    </div>
  );
}

/**
 * The platform's CLI access, fetched again whenever `version` (the live updates' counter) grows;
 * `canSwitch` (platform admins) adds the switch.
 */
export function PlatformCliAccess({ version, canSwitch }: { version: number; canSwitch: boolean }) {
  const load = useCallback((signal: AbortSignal) => loadPlatformCliAccess(signal), []);
  const [ownChanges, setOwnChanges] = useState(0);
  const changed = useCallback(() => setOwnChanges((n) => n + 1), []);
  const flag = useLoad(load, version + ownChanges);
  return (
    <Panel title="Platform CLI access">
      {flag.state === 'loading' && <Loading what="the platform's CLI access" />}
      {flag.state === 'error' && <ErrorNotice>{flag.message}</ErrorNotice>}
      {flag.state === 'done' &&
        (flag.data === undefined ? (
          <ErrorNotice>The API server does not know the cli_access.enabled flag.</ErrorNotice>
        ) : (
          <>
            <Details flag={flag.data} />
            {canSwitch && <Controls flag={flag.data} onChanged={changed} />}
          </>
        ))}
    </Panel>
  );
}
