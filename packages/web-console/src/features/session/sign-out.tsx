import { useState } from 'react';
import { ApiError, send } from '../../lib/api';

/** Ends the session on the server (every replica), then `onSignedOut` shows the signed-out page. */
export function SignOut({ onSignedOut }: { onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const signOut = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await send('POST', '/console/auth/logout');
      onSignedOut();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Signing out failed; try again.');
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
