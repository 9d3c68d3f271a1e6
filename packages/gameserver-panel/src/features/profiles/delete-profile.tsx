import { ErrorNotice, Modal, useAction } from '@gsp/ui';
import { deleteProfile } from './api';

/** Deletes a profile after a confirmation that names it and says what follows. */
export function DeleteProfileDialog({
  name,
  onClose,
  onDeleted,
}: {
  name: string;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const { busy, error, run } = useAction(onDeleted);
  return (
    <Modal title={`Delete profile ${name}?`} onClose={onClose}>
      <p>
        Profile <strong>{name}</strong> is removed: no new game server can be created from it. Game servers and fleets
        made from it keep running, but their profile actions and restart stop working. This cannot be undone.
      </p>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button
          type="button"
          className="button button-danger"
          disabled={busy}
          onClick={() => void run(() => deleteProfile(name))}
        >
          Delete profile {name}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
