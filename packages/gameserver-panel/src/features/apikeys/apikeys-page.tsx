import { useId, useState } from 'react';
import { ErrorNotice, Facts, formatTime, Loading, Panel, useLoad } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import { knownRoles, listApiKeys } from './api';
import type { ApiKey, CreatedKey } from './api';
import { CreateKeyForm } from './create-key';
import { KeyOnceDialog } from './key-once-dialog';
import { RevokeKeyDialog } from './revoke-key';
import './apikeys.css';

function KeyCard({ apiKey, why, onRevoke }: { apiKey: ApiKey; why: string | undefined; onRevoke: () => void }) {
  const ids = useId();
  return (
    <li className="card key" aria-labelledby={`${ids}-name`}>
      <h4 id={`${ids}-name`}>{apiKey.name}</h4>
      <Facts
        items={[
          ['Role', apiKey.role],
          ['Created by', apiKey.username],
          ['Created', formatTime(apiKey.createdAt)],
          ['Expires', apiKey.expiresAt === undefined ? 'Never' : formatTime(apiKey.expiresAt)],
          ['Last used', apiKey.lastUsedAt === undefined ? 'Not yet recorded' : formatTime(apiKey.lastUsedAt)],
        ]}
      />
      <div className="actions">
        <button
          type="button"
          className="button button-danger"
          disabled={why !== undefined}
          aria-describedby={why === undefined ? undefined : `${ids}-why`}
          onClick={onRevoke}
        >
          Revoke {apiKey.name}
        </button>
      </div>
      {why !== undefined && (
        <p className="why" id={`${ids}-why`}>
          {why}
        </p>
      )}
    </li>
  );
}

function KeyList({
  session,
  keys,
  onRevoked,
}: {
  session: PanelSession;
  keys: ApiKey[];
  onRevoked: (name: string) => void;
}) {
  const [revoking, setRevoking] = useState<ApiKey | undefined>();
  const why = can(session, 'apikeys', 'delete') ? undefined : whyNot(session, 'apikeys', 'delete');
  if (keys.length === 0) return <p>There are no API keys.</p>;
  return (
    <>
      <ul className="card-grid keys">
        {keys.map((k) => (
          <KeyCard key={k.name} apiKey={k} why={why} onRevoke={() => setRevoking(k)} />
        ))}
      </ul>
      {revoking !== undefined && (
        <RevokeKeyDialog
          apiKey={revoking}
          onClose={() => setRevoking(undefined)}
          onRevoked={() => {
            setRevoking(undefined);
            onRevoked(revoking.name);
          }}
        />
      )}
    </>
  );
}

/**
 * `#/apikeys` (admin): the keys (never their values), a form to create one, whose value is shown
 * once in a dialog, and revocation with a confirmation.
 */
export function ApiKeysPage({ session }: { session: PanelSession }) {
  const [version, setVersion] = useState(0);
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [said, setSaid] = useState('');
  const mayList = can(session, 'apikeys', 'list');
  const keys = useLoad(mayList ? listApiKeys : noKeys, version);
  const reload = () => setVersion((v) => v + 1);
  const createWhy = can(session, 'apikeys', 'create') ? undefined : whyNot(session, 'apikeys', 'create');
  if (!mayList)
    return (
      <Panel title="API keys">
        <p className="why">{whyNot(session, 'apikeys', 'list')}</p>
      </Panel>
    );
  return (
    <Panel title="API keys">
      <p>
        An API key signs a script or a tool in with a role, as the <span className="code">X-API-Key</span> header.
      </p>
      <p role="status" className="key-said">
        {said}
      </p>
      {keys.state === 'loading' && <Loading what="API keys" />}
      {keys.state === 'error' && <ErrorNotice>{keys.message}</ErrorNotice>}
      {keys.state === 'done' && (
        <KeyList
          session={session}
          keys={keys.data}
          onRevoked={(name) => {
            setSaid(`API key ${name} revoked.`);
            reload();
          }}
        />
      )}
      <CreateKeyForm
        roles={knownRoles(session.role, keys.state === 'done' ? keys.data : [])}
        why={createWhy}
        onCreated={(answer) => {
          setSaid('');
          setCreated(answer);
        }}
      />
      {created !== undefined && (
        <KeyOnceDialog
          created={created}
          onClose={() => {
            setSaid(`API key ${created.name} created.`);
            setCreated(undefined);
            reload();
          }}
        />
      )}
    </Panel>
  );
}

const noKeys = async (): Promise<ApiKey[]> => [];
