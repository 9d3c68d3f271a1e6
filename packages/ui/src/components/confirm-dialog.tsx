import type { ReactNode } from 'react';
import { useAction } from '../lib/use-action';
import { Modal } from './modal';
import { ErrorNotice } from './notice';

/**
 * A confirmation: the title asks, `children` (one sentence in a paragraph) says what follows, and
 * the confirm button runs `onConfirm`; on success `onDone`, on a refusal the sentence stays in the
 * dialog above the buttons. `danger` styles the button for what destroys; `busyLabel`, when given,
 * replaces the confirm label while the call runs.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel,
  danger = false,
  onConfirm,
  onClose,
  onDone,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  onDone: () => void;
}) {
  const { busy, error, run } = useAction(onDone);
  return (
    <Modal title={title} onClose={onClose}>
      <p>{children}</p>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button
          type="button"
          className={danger ? 'button button-danger' : 'button'}
          disabled={busy}
          onClick={() => void run(onConfirm)}
        >
          {busy && busyLabel !== undefined ? busyLabel : confirmLabel}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
