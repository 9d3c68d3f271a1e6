import { ErrorNotice, Modal, useAction } from '@gsp/ui';
import { revokeApiKey } from './api';
import type { ApiKey } from './api';

/** Revokes a key after a confirmation that names it and says what follows. */
export function RevokeKeyDialog({
  apiKey,
  onClose,
  onRevoked,
}: {
  apiKey: ApiKey;
  onClose: () => void;
  onRevoked: () => void;
}) {
  const { busy, error, run } = useAction(onRevoked);
  return (
    <Modal title={`Revoke API key ${apiKey.name}?`} onClose={onClose}>
      <p>
        API key <strong>{apiKey.name}</strong> (role {apiKey.role}, created by {apiKey.username}) stops working at once:
        every request with it is refused, and panel sessions and consoles opened with it close. This cannot be undone.
      </p>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button
          type="button"
          className="button button-danger"
          disabled={busy}
          onClick={() => void run(() => revokeApiKey(apiKey.name))}
        >
          Revoke API key {apiKey.name}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
