import { useCallback, useEffect, useState } from 'react';
import { ErrorNotice, Loading, useLoad } from '@gsp/ui';
import { AuditFeed } from '../features/audit/audit-feed';
import { PlatformCliAccess } from '../features/platform/cli-access';
import { loadSession } from '../features/session/api';
import { SignIn } from '../features/session/sign-in';
import { SignOut } from '../features/session/sign-out';
import { AllTenants } from '../features/tenants/all-tenants';
import { TenantView } from '../features/tenants/tenant-view';
import { markFirstData } from '../lib/first-data';
import { useLiveUpdates } from '../lib/live';

export function App() {
  // Grows on sign-out, so the page asks the server again who is signed in.
  const [sessionVersion, setSessionVersion] = useState(0);
  const session = useLoad(loadSession, sessionVersion);
  const signedOut = useCallback(() => setSessionVersion((v) => v + 1), []);
  useEffect(() => {
    if (session.state !== 'loading') markFirstData();
  }, [session.state]);
  const signedIn = session.state === 'done' && session.data.signedIn;
  const live = useLiveUpdates(signedIn);
  // A refused reconnection may mean the session ended elsewhere (sign-out in another tab): ask again.
  useEffect(() => {
    if (live.refusals > 0) setSessionVersion((v) => v + 1);
  }, [live.refusals]);

  return (
    <>
      <header className="top">
        <span className="brand">GSP console</span>
        {session.state === 'done' && session.data.signedIn && (
          <span className="account">
            <span className="who" title={session.data.me.subject}>
              {session.data.name}
            </span>
            <SignOut onSignedOut={signedOut} />
          </span>
        )}
      </header>
      <main className="page">
        <h1>CLI access</h1>
        <div role="status" className="live-status" data-live={signedIn ? live.status : undefined}>
          {signedIn && live.status === 'paused' && (
            <p className="notice notice-warning">Live updates paused, reconnecting…</p>
          )}
        </div>
        {session.state === 'loading' && <Loading what="your session" />}
        {session.state === 'error' && <ErrorNotice>{session.message}</ErrorNotice>}
        {session.state === 'done' && !session.data.signedIn && <SignIn />}
        {session.state === 'done' && session.data.signedIn && (
          <>
            <PlatformCliAccess version={live.version} canSwitch={session.data.me.platformAdmin} />
            <TenantView
              tenants={session.data.me.tenants}
              version={live.version}
              platformAdmin={session.data.me.platformAdmin}
            />
            {session.data.me.platformAdmin && (
              <>
                <AllTenants version={live.version} />
                <AuditFeed version={live.version} />
              </>
            )}
          </>
        )}
      </main>
    </>
  );
}
