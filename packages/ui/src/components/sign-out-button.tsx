import { useState } from 'react';
import { failure } from '../lib/failure';

/**
 * The "Sign out" button of the page's top bar: it runs the app's `signOut` (which ends the session
 * on the server), then `onSignedOut`; while it runs the button is disabled, and a failure is a
 * sentence beside it (`role="alert"`), the button enabled again to retry.
 */
export function SignOutButton({ signOut, onSignedOut }: { signOut: () => Promise<void>; onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const click = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await signOut();
      onSignedOut();
    } catch (err) {
      setError(failure(err, 'Signing out failed; try again.'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="sign-out">
      <button type="button" className="button button-quiet" onClick={() => void click()} disabled={busy}>
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
