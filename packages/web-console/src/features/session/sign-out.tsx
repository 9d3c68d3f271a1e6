import { SignOutButton } from '@gsp/ui';
import { send } from '../../lib/api';

/** Ends the session on the server (every replica), then `onSignedOut` shows the signed-out page. */
export function SignOut({ onSignedOut }: { onSignedOut: () => void }) {
  return <SignOutButton signOut={() => send<void>('POST', '/console/auth/logout')} onSignedOut={onSignedOut} />;
}
