import { useState } from 'react';
import { failure } from '@gsp/ui';
import { send } from '../../lib/api';

/** Ends the session on the control plane (every replica), then `onSignedOut` shows the sign-in view. */
export function SignOut({ onSignedOut }: { onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const signOut = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await send('POST', '/panel/auth/logout');
      onSignedOut();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="sign-out">
      <button type="button" className="button button-quiet" onClick={() => void signOut()} disabled={busy}>
        Sign out
      </button>
      {error !== undefined && (
        <span className="sign-out-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
