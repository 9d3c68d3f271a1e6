import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { DNS_LABEL_MAX_LENGTH, DNS_LABEL_RULE, isDnsLabel } from '@gsp/platform-contract/identifiers';
import { Modal, ErrorNotice, failure } from '@gsp/ui';
import { registerCluster } from './api';
import type { Registered } from './api';

/** The agent's install commands, as deploy/README.md's step 6 runs them, for this cluster. */
export function installCommands({ id, tunnelUrl }: Pick<Registered, 'id' | 'tunnelUrl'>): string {
  return [
    'kubectl create namespace gsp-agent',
    'kubectl -n gsp-agent create secret generic gsp-agent-token --from-literal=token="$AGENT_TOKEN"',
    'helm install gsp deploy/helm/tunnel-agent -n gsp-agent \\',
    `  --set proxyTunnelUrl=${tunnelUrl} \\`,
    `  --set clusterId=${id} \\`,
    '  --set agentToken.existingSecret=gsp-agent-token',
  ].join('\n');
}

function CopyButton({ text, what }: { text: string; what: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid(`${what} copied.`);
    } catch {
      setSaid(`The browser did not let the console copy; select the ${what.toLowerCase()} and copy it yourself.`);
    }
  };
  return (
    <span className="copy">
      <button type="button" className="button button-secondary" onClick={() => void copy()}>
        Copy {what.toLowerCase()}
      </button>
      <span role="status" className="copy-status">
        {said}
      </span>
    </span>
  );
}

/** The new agent token, shown once: closing the dialog forgets it. */
function TokenDialog({ registered, onClose }: { registered: Registered; onClose: () => void }) {
  const ids = useId();
  return (
    <Modal title={`Cluster ${registered.name} is registered`} onClose={onClose}>
      <p id={`${ids}-once`}>
        <strong>This agent token is shown only once.</strong> The API server keeps only its hash: copy it now. A lost
        token can be replaced, which disconnects the agent.
      </p>
      <div className="form">
        <label htmlFor={`${ids}-token`}>Agent token</label>
        <input
          id={`${ids}-token`}
          className="code"
          readOnly
          value={registered.agentToken}
          aria-describedby={`${ids}-once`}
          onFocus={(e) => e.currentTarget.select()}
        />
      </div>
      <div className="actions">
        <CopyButton text={registered.agentToken} what="Token" />
      </div>
      <p id={`${ids}-how`}>
        Install the agent in the cluster, with kubectl and helm pointed at it, <code>AGENT_TOKEN</code> set to the token
        and this repository&apos;s <code>deploy/helm</code> at hand:
      </p>
      <pre className="commands" aria-labelledby={`${ids}-how`}>
        <code>{installCommands(registered)}</code>
      </pre>
      <div className="actions">
        <CopyButton text={installCommands(registered)} what="Commands" />
        <button type="button" className="button" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}

/** Registers a cluster by name; the answer's agent token is shown once, in a dialog. */
export function RegisterCluster({
  org,
  canRegister,
  onRegistered,
}: {
  org: string;
  canRegister: boolean;
  onRegistered: () => void;
}) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [registered, setRegistered] = useState<Registered | undefined>();
  const ids = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim();
    if (!isDnsLabel(wanted)) {
      setError(`A cluster name is ${DNS_LABEL_RULE}.`);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      setRegistered(await registerCluster(org, wanted));
      setName('');
      onRegistered();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h3 id={`${ids}-title`}>Register a cluster</h3>
      <form className="form form-inline" aria-labelledby={`${ids}-title`} onSubmit={(e) => void submit(e)}>
        <label htmlFor={`${ids}-name`}>Cluster name (lower-case letters, digits and "-")</label>
        <div className="inline">
          <input
            id={`${ids}-name`}
            name="name"
            autoComplete="off"
            spellCheck={false}
            maxLength={DNS_LABEL_MAX_LENGTH}
            disabled={!canRegister}
            aria-describedby={canRegister ? undefined : `${ids}-why`}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <button
            type="submit"
            className="button"
            disabled={!canRegister || busy}
            aria-describedby={canRegister ? undefined : `${ids}-why`}
          >
            Register
          </button>
        </div>
        {!canRegister && (
          <p className="why" id={`${ids}-why`}>
            Viewers cannot register clusters; ask a tenant admin or operator.
          </p>
        )}
        {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      </form>
      {registered !== undefined && <TokenDialog registered={registered} onClose={() => setRegistered(undefined)} />}
    </>
  );
}
