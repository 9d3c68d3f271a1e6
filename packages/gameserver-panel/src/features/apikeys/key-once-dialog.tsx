import { useId, useState } from 'react';
import { formatTime, Modal } from '@gsp/ui';
import type { CreatedKey } from './api';

/**
 * The new key, shown once. It lives only in the state of the page that created it: closing the
 * dialog forgets it, and nothing (storage, the list, a refetch) ever shows it again.
 */
export function KeyOnceDialog({ created, onClose }: { created: CreatedKey; onClose: () => void }) {
  const [said, setSaid] = useState('');
  const ids = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setSaid('Key copied.');
    } catch {
      setSaid('The browser did not let the panel copy; select the key and copy it yourself.');
    }
  };
  return (
    <Modal title={`API key ${created.name} is created`} onClose={onClose}>
      <p id={`${ids}-once`} className="notice notice-warning">
        <strong>This key is shown only once.</strong> Copy it now and keep it where secrets belong: once this dialog
        closes, neither the panel nor the API can show it again. A lost key can only be revoked and replaced.
      </p>
      <div className="form">
        <label htmlFor={`${ids}-key`}>API key (send it as the X-API-Key header)</label>
        <input
          id={`${ids}-key`}
          className="code"
          readOnly
          autoComplete="off"
          spellCheck={false}
          value={created.key}
          aria-describedby={`${ids}-once`}
          onFocus={(e) => e.currentTarget.select()}
        />
      </div>
      <p>
        Role {created.role}
        {created.expiresAt === undefined ? ', no expiry.' : `, expires ${formatTime(created.expiresAt)}.`}
      </p>
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={() => void copy()}>
          Copy key
        </button>
        <button type="button" className="button" onClick={onClose}>
          Done
        </button>
      </div>
      <p role="status" className="key-copied">
        {said}
      </p>
    </Modal>
  );
}
