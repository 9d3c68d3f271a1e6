import { useEffect } from 'react';
import { ErrorNotice, Loading } from '../components/notice';
import { PlatformCliAccess } from '../features/platform/cli-access';
import { loadSession } from '../features/session/api';
import { SignIn } from '../features/session/sign-in';
import { TenantList } from '../features/tenants/tenant-list';
import { markFirstData } from '../lib/first-data';
import { useLiveUpdates } from '../lib/live';
import { useLoad } from '../lib/use-load';

export function App() {
  const session = useLoad(loadSession);
  useEffect(() => {
    if (session.state !== 'loading') markFirstData();
  }, [session.state]);
  const signedIn = session.state === 'done' && session.data.signedIn;
  const live = useLiveUpdates(signedIn);

  return (
    <>
      <header className="top">
        <span className="brand">GSP console</span>
        {session.state === 'done' && session.data.signedIn && <span className="who">{session.data.me.subject}</span>}
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
            <PlatformCliAccess version={live.version} />
            <TenantList tenants={session.data.me.tenants} />
          </>
        )}
      </main>
    </>
  );
}
