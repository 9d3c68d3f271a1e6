import { useId, useState } from 'react';
import { ErrorNotice, Modal, useAction } from '@gsp/ui';
import type { GameServer } from '../../../lib/types';
import { deleteServer } from '../api/servers';

/** Confirms a deletion, naming the server and what it costs; an Allocated server needs `force`. */
export function DeleteDialog({
  server,
  onClose,
  onDeleted,
}: {
  server: GameServer;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const id = useId();
  const allocated = server.state === 'Allocated';
  const [force, setForce] = useState(false);
  const { busy, error, run } = useAction(onDeleted);
  const label = `${server.namespace}/${server.name}`;
  return (
    <Modal title={`Delete game server ${label}?`} onClose={onClose}>
      <p>
        Agones shuts <strong>{label}</strong> down and removes it with its storage. This cannot be undone.
      </p>
      {allocated && (
        <div className="form">
          <p className="notice notice-warning" id={`${id}-allocated`}>
            It is Allocated: players are on it, and deleting it disconnects them.
          </p>
          <label className="check">
            <input
              type="checkbox"
              checked={force}
              aria-describedby={`${id}-allocated`}
              onChange={(e) => setForce(e.target.checked)}
            />{' '}
            Force: delete it although players are on it
          </label>
        </div>
      )}
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button
          type="button"
          className="button button-danger"
          disabled={busy || (allocated && !force)}
          onClick={() => void run(() => deleteServer(server.namespace, server.name, allocated && force))}
        >
          Delete {server.name}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
