import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ErrorNotice, Panel, useAction } from '@gsp/ui';
import type { SignInMethods } from '../../lib/session';
import { oidcLoginUrl, signInApiKey, signInBasic } from './api';

function BasicForm({ onSignedIn }: { onSignedIn: () => void }) {
  const id = useId();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction(onSignedIn);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => signInBasic(username, password));
  };
  return (
    <form className="form sign-in-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>With a username and password</h3>
      <label htmlFor={`${id}-user`}>Username</label>
      <input
        id={`${id}-user`}
        name="username"
        autoComplete="username"
        required
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <label htmlFor={`${id}-password`}>Password</label>
      <input
        id={`${id}-password`}
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          Sign in
        </button>
      </div>
    </form>
  );
}

function ApiKeyForm({ onSignedIn }: { onSignedIn: () => void }) {
  const id = useId();
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction(onSignedIn);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => signInApiKey(key.trim()));
  };
  return (
    <form className="form sign-in-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>With an API key</h3>
      <label htmlFor={`${id}-key`}>API key</label>
      <input
        id={`${id}-key`}
        name="key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        required
        value={key}
        onChange={(e) => setKey(e.target.value)}
      />
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          Sign in with the key
        </button>
      </div>
    </form>
  );
}

/**
 * The signed-out view: the sign-in methods the control plane offers. `ended`: the session ended
 * while the page was open (signed out elsewhere, key revoked, expired), which the view says.
 */
export function SignIn({
  methods,
  ended,
  onSignedIn,
}: {
  methods: SignInMethods;
  ended: boolean;
  onSignedIn: () => void;
}) {
  const none = !methods.oidc && !methods.basic && !methods.apikey;
  return (
    <Panel title="Sign in">
      {ended && <p className="notice notice-warning">Your session has ended; sign in again.</p>}
      <p>Sign in to see and run your game servers.</p>
      {methods.oidc && (
        <p>
          <a className="button" href={oidcLoginUrl()}>
            Sign in with your identity provider
          </a>
        </p>
      )}
      {methods.basic && <BasicForm onSignedIn={onSignedIn} />}
      {methods.apikey && <ApiKeyForm onSignedIn={onSignedIn} />}
      {none && (
        <ErrorNotice>
          This control plane offers no way to sign in to the panel; ask its operator to set AUTH_MODE.
        </ErrorNotice>
      )}
    </Panel>
  );
}
