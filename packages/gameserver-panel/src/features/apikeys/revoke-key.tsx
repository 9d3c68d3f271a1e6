import { ConfirmDialog } from '@gsp/ui';
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
  return (
    <ConfirmDialog
      title={`Revoke API key ${apiKey.name}?`}
      confirmLabel={`Revoke API key ${apiKey.name}`}
      danger
      onConfirm={() => revokeApiKey(apiKey.name)}
      onClose={onClose}
      onDone={onRevoked}
    >
      API key <strong>{apiKey.name}</strong> (role {apiKey.role}, created by {apiKey.username}) stops working at once:
      every request with it is refused, and panel sessions and consoles opened with it close. This cannot be undone.
    </ConfirmDialog>
  );
}
