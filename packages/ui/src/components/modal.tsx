import { useId, useLayoutEffect, useRef } from 'react';
import type { ReactNode } from 'react';

/**
 * A native modal <dialog>: the browser keeps focus inside it, closes it on Escape and, once it
 * closes, returns focus to what had it before; labelled by its title.
 */
export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // A layout effect's cleanup runs while the dialog is still in the document, so closing it there
  // lets the browser give focus back to the control that opened it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
