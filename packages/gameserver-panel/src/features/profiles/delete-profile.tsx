import { ConfirmDialog } from '@gsp/ui';
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
  return (
    <ConfirmDialog
      title={`Delete profile ${name}?`}
      confirmLabel={`Delete profile ${name}`}
      danger
      onConfirm={() => deleteProfile(name)}
      onClose={onClose}
      onDone={onDeleted}
    >
      Profile <strong>{name}</strong> is removed: no new game server can be created from it. Game servers and fleets
      made from it keep running, but their profile actions and restart stop working. This cannot be undone.
    </ConfirmDialog>
  );
}
