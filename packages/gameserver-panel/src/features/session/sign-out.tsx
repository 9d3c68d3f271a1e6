import { SignOutButton } from '@gsp/ui';
import { send } from '../../lib/api';

/** Ends the session on the control plane (every replica), then `onSignedOut` shows the sign-in view. */
export function SignOut({ onSignedOut }: { onSignedOut: () => void }) {
  return <SignOutButton signOut={() => send<void>('POST', '/panel/auth/logout')} onSignedOut={onSignedOut} />;
}
