import { useId, useState } from 'react';
import { ConfirmDialog, ErrorNotice, Modal, useAction } from '@gsp/ui';
import { DNS_LABEL_MAX_LENGTH } from '@gsp/platform-contract/identifiers';
import { deleteSnapshot, restoreSnapshot } from './api';
import type { GameServerView, SnapshotView } from './types';

const RESTORED = '-restored';

/** Names a restored server: the snapshot's server with `-restored`, within a DNS label's length. */
export function restoredName(snapshot: SnapshotView): string {
  return `${snapshot.gameServer.slice(0, DNS_LABEL_MAX_LENGTH - RESTORED.length)}${RESTORED}`;
}

/** Restores a snapshot into a new game server with the snapshot's profile, then links to it. */
export function RestoreDialog({ snapshot, onClose }: { snapshot: SnapshotView; onClose: () => void }) {
  const id = useId();
  const [name, setName] = useState(restoredName(snapshot));
  const [created, setCreated] = useState<GameServerView | undefined>();
  const { busy, error, run } = useAction(() => undefined);
  const profile = snapshot.profile ?? '';
  return (
    <Modal title={`Restore ${snapshot.name}`} onClose={onClose}>
      {created === undefined ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => setCreated(await restoreSnapshot(snapshot, name, profile)));
          }}
        >
          <p>
            A new game server from profile {profile || '(unknown)'} in {snapshot.namespace}, its storage starting from
            this snapshot. The server it was taken of is not changed.
          </p>
          <label htmlFor={id}>Name of the new game server</label>
          <input
            id={id}
            name="name"
            required
            maxLength={DNS_LABEL_MAX_LENGTH}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
          <div className="actions">
            <button className="button button-secondary" type="button" onClick={onClose}>
              Cancel
            </button>
            <button className="button" type="submit" disabled={busy || profile === ''}>
              {busy ? 'Restoring…' : 'Restore into a new server'}
            </button>
          </div>
        </form>
      ) : (
        <>
          <p role="status">
            Created{' '}
            <a href={`#/servers/${encodeURIComponent(created.namespace)}/${encodeURIComponent(created.name)}`}>
              {created.namespace}/{created.name}
            </a>{' '}
            ({created.state}); its storage is restored from {snapshot.name}.
          </p>
          <div className="actions">
            <button className="button button-secondary" type="button" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}

/** Deletes a snapshot after saying what goes: its data, for good. */
export function DeleteDialog({
  snapshot,
  onClose,
  onDeleted,
}: {
  snapshot: SnapshotView;
  onClose: () => void;
  onDeleted: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Delete snapshot ${snapshot.name}?`}
      confirmLabel={`Delete ${snapshot.name}`}
      busyLabel="Deleting…"
      danger
      onConfirm={async () => void (await deleteSnapshot(snapshot))}
      onClose={onClose}
      onDone={onDeleted}
    >
      The snapshotter removes its data: no server can be restored from it afterwards. Game servers already restored from
      it keep their storage.
    </ConfirmDialog>
  );
}
