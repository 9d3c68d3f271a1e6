import { useId, useState } from 'react';
import { ErrorNotice, Loading, Panel, failure, formatTime } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import { formatDuration } from '../../lib/time';
import type { PanelSession } from '../../lib/session';
import { Output } from './action-answer';
import { takeSnapshot } from './api';
import type { ServerRef } from './api';
import { DeleteDialog, RestoreDialog } from './snapshot-dialogs';
import { pending, useSnapshots } from './use-snapshots';
import type { HookRun, SnapshotTaken, SnapshotView } from './types';

function readiness(s: SnapshotView): string {
  if (s.readyToUse) return `Ready${s.restoreSize === null ? '' : ` (${s.restoreSize})`}`;
  return s.error === null ? 'Being cut…' : `Failed: ${s.error}`;
}

function HookView({ label, run }: { label: string; run: HookRun | null }) {
  if (run === null) return null;
  const how = run.error !== null ? `did not finish: ${run.error}` : `exited with code ${run.exitCode ?? '?'}`;
  return (
    <div className="hook-run">
      <p>
        {label} {how} after {formatDuration(run.durationMs)}.
      </p>
      <Output label={`${label}: standard output`} text={run.stdout} />
      <Output label={`${label}: standard error`} text={run.stderr} />
    </div>
  );
}

function TakenView({ taken, now }: { taken: SnapshotTaken; now: SnapshotView | undefined }) {
  const { preCommand, postCommand } = taken.hooks;
  return (
    <div className="snapshot-taken" role="status">
      <p>
        Snapshot <strong>{taken.name}</strong> asked for: {readiness(now ?? taken)}.
        {preCommand === null && postCommand === null && ' The profile runs no snapshot commands.'}
      </p>
      <HookView label="The pre-snapshot command" run={preCommand} />
      <HookView label="The post-snapshot command" run={postCommand} />
    </div>
  );
}

interface Rights {
  restore: string | undefined;
  remove: string | undefined;
}

function SnapshotRow({ snapshot, why, onChanged }: { snapshot: SnapshotView; why: Rights; onChanged: () => void }) {
  const [dialog, setDialog] = useState<'restore' | 'delete' | undefined>();
  const notReadyId = useId();
  const restoreWhy = why.restore ?? (snapshot.readyToUse ? undefined : notReadyId);
  return (
    <tr>
      <th scope="row">{snapshot.name}</th>
      <td>{readiness(snapshot)}</td>
      <td>{formatTime(snapshot.createdAt)}</td>
      <td className="row-buttons">
        {!snapshot.readyToUse && (
          <span id={notReadyId} className="visually-hidden">
            A snapshot can be restored once it is ready.
          </span>
        )}
        <button
          className="button"
          type="button"
          disabled={restoreWhy !== undefined}
          aria-describedby={restoreWhy}
          onClick={() => setDialog('restore')}
        >
          Restore…
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={why.remove !== undefined}
          aria-describedby={why.remove}
          onClick={() => setDialog('delete')}
        >
          Delete…
        </button>
        {dialog === 'restore' && <RestoreDialog snapshot={snapshot} onClose={() => setDialog(undefined)} />}
        {dialog === 'delete' && (
          <DeleteDialog snapshot={snapshot} onClose={() => setDialog(undefined)} onDeleted={onChanged} />
        )}
      </td>
    </tr>
  );
}

/**
 * Snapshots of the server's storage: taken (with the hooks' output), restored into a new server,
 * deleted. `takeWhy`: why no snapshot can be taken of the server as it is now, when none can.
 */
export function ServerSnapshots({
  session,
  server,
  takeWhy,
}: {
  session: PanelSession;
  server: ServerRef;
  takeWhy: string | undefined;
}) {
  const ids = { take: useId(), takeNow: useId(), restore: useId(), remove: useId() };
  const { loaded, refresh } = useSnapshots(server);
  const [taken, setTaken] = useState<SnapshotTaken | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const may = (resource: string, verb: 'create' | 'delete') => can(session, resource, verb, server.namespace);
  const why: Rights = {
    restore: may('gameservers', 'create') ? undefined : ids.restore,
    remove: may('snapshots', 'delete') ? undefined : ids.remove,
  };
  const take = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setTaken(await takeSnapshot(server));
      refresh();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };
  const list = loaded.state === 'done' ? loaded.data : [];
  const mayTake = may('snapshots', 'create');
  // The role's reason first; then the server's own (no storage, not running for its commands).
  const takeNow = mayTake ? takeWhy : undefined;
  return (
    <Panel title="Snapshots">
      <WhyNots session={session} ids={ids} show={{ take: !mayTake, ...(list.length > 0 ? why : {}) }} />
      <button
        className="button"
        type="button"
        disabled={!mayTake || busy || takeNow !== undefined}
        aria-describedby={!mayTake ? ids.take : takeNow !== undefined ? ids.takeNow : undefined}
        onClick={() => void take()}
      >
        {busy ? 'Taking a snapshot…' : 'Take a snapshot'}
      </button>
      {takeNow !== undefined && (
        <p id={ids.takeNow} className="why">
          {takeNow}
        </p>
      )}
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      {taken !== undefined && <TakenView taken={taken} now={list.find((s) => s.name === taken.name)} />}
      {loaded.state === 'loading' && <Loading what="snapshots" />}
      {loaded.state === 'error' && <ErrorNotice>{loaded.message}</ErrorNotice>}
      {loaded.state === 'done' && list.length === 0 && <p>No snapshots of this server yet.</p>}
      {list.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Snapshots of this server">
          <table className="snapshots">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Asked for</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <SnapshotRow key={s.name} snapshot={s} why={why} onChanged={refresh} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.some(pending) && <p className="hint">Checking again until every snapshot is cut.</p>}
    </Panel>
  );
}

function WhyNots({
  session,
  ids,
  show,
}: {
  session: PanelSession;
  ids: { take: string; restore: string; remove: string };
  show: { take: boolean; restore?: string | undefined; remove?: string | undefined };
}) {
  return (
    <>
      {show.take && (
        <p id={ids.take} className="why">
          {whyNot(session, 'snapshots', 'create')}
        </p>
      )}
      {show.restore !== undefined && (
        <p id={ids.restore} className="why">
          Restore: {whyNot(session, 'gameservers', 'create')}
        </p>
      )}
      {show.remove !== undefined && (
        <p id={ids.remove} className="why">
          Delete: {whyNot(session, 'snapshots', 'delete')}
        </p>
      )}
    </>
  );
}
