import { useCallback, useEffect, useRef, useState } from 'react';
import { ErrorNotice, Loading, useLoad } from '@gsp/ui';
import { SIGNED_OUT_EVENT } from '../lib/api';
import { loadSession } from '../lib/session';
import type { PanelSession } from '../lib/session';
import { SignIn } from '../features/session/sign-in';
import { SignOut } from '../features/session/sign-out';
import { ServersPage } from '../features/servers/servers-page';
import { Nav } from './nav';
import { ApiKeysPage, FleetsPage, Lazy, ProfilesPage, ServerPage } from './pages';
import { useRoute } from './routes';
import type { Route } from './routes';

function Page({ route, session }: { route: Route; session: PanelSession }) {
  switch (route.page) {
    case 'servers':
      return <ServersPage session={session} />;
    case 'server':
      return (
        <Lazy title="Game server">
          <ServerPage
            session={session}
            namespace={route.namespace}
            name={route.name}
            key={`${route.namespace}/${route.name}`}
          />
        </Lazy>
      );
    case 'fleets':
      return (
        <Lazy title="Fleets">
          <FleetsPage session={session} />
        </Lazy>
      );
    case 'profiles':
      return (
        <Lazy title="Profiles">
          <ProfilesPage session={session} />
        </Lazy>
      );
    case 'apikeys':
      return (
        <Lazy title="API keys">
          <ApiKeysPage session={session} />
        </Lazy>
      );
    case 'unknown':
      return (
        <ErrorNotice>
          The panel has no page at {route.hash}; go to <a href="#/servers">the game servers</a>.
        </ErrorNotice>
      );
  }
}

/**
 * The panel: asks the control plane who is signed in, shows the sign-in view or the shell (header,
 * navigation, the routed page). Any 401 from the API (the session ended elsewhere, its key was
 * revoked, it expired) raises `gsp:signed-out`, which asks again and explains the sign-in view.
 */
export function App() {
  const [sessionVersion, setSessionVersion] = useState(0);
  const [ended, setEnded] = useState(false);
  const session = useLoad(loadSession, sessionVersion);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // Signing out on purpose ends the live feed too; that is no news to the person who chose it.
  const chose = useRef(false);
  const askAgain = useCallback(() => setSessionVersion((v) => v + 1), []);
  const signedIn = useCallback(() => {
    chose.current = false;
    setEnded(false);
    askAgain();
  }, [askAgain]);
  const signedOut = useCallback(() => {
    chose.current = true;
    askAgain();
  }, [askAgain]);
  useEffect(() => {
    const onSignedOut = () => {
      if (!chose.current) setEnded(true);
      askAgain();
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, [askAgain]);
  const current = session.state === 'done' && session.data.signedIn ? session.data : undefined;

  return (
    <>
      {/* A hash link would change the route: move focus to the content instead. */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to main content
      </a>
      <header className="top">
        <h1 className="brand">Game servers</h1>
        {current !== undefined && (
          <>
            <Nav session={current} route={route} />
            <span className="account">
              <span className="who">
                {current.username}
                {current.role !== null && <span className="role"> ({current.role})</span>}
              </span>
              <SignOut onSignedOut={signedOut} />
            </span>
          </>
        )}
      </header>
      <main id="main" className="page" ref={main} tabIndex={-1}>
        {session.state === 'loading' && <Loading what="your session" />}
        {session.state === 'error' && <ErrorNotice>{session.message}</ErrorNotice>}
        {session.state === 'done' && !session.data.signedIn && (
          <SignIn methods={session.data.methods} ended={ended} onSignedIn={signedIn} />
        )}
        {current !== undefined && <Page route={route} session={current} />}
      </main>
    </>
  );
}
