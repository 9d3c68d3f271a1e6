import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ErrorNotice, Loading, Modal, useAction, useLoad } from '@gsp/ui';
import { DNS_LABEL_RULE, isDnsLabel } from '@gsp/platform-contract/identifiers';
import type { GameServer } from '../../../lib/types';
import { createServer, loadProfiles } from '../api/servers';
import type { ProfileChoice } from '../api/servers';

const NAME_RULE = `A name is ${DNS_LABEL_RULE}.`;

/** What the form's values are missing, as a sentence (before anything is sent). */
function problemOf(profile: string, namespace: string, name: string): string | undefined {
  if (profile === '') return 'Choose a profile.';
  if (!isDnsLabel(namespace)) return `The namespace "${namespace}" is not valid. ${NAME_RULE}`;
  if (name !== '' && !isDnsLabel(name)) return `The name "${name}" is not valid. ${NAME_RULE}`;
  return undefined;
}

/** The namespace: typed (with the known ones offered) for a role that may create anywhere, else chosen. */
function NamespaceField({
  id,
  namespaces,
  known,
  value,
  onChange,
}: {
  id: string;
  namespaces: '*' | string[];
  known: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  if (namespaces !== '*')
    return (
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {namespaces.map((ns) => (
          <option key={ns} value={ns}>
            {ns}
          </option>
        ))}
      </select>
    );
  return (
    <>
      <input
        id={id}
        list={`${id}-known`}
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <datalist id={`${id}-known`}>
        {known.map((ns) => (
          <option key={ns} value={ns} />
        ))}
      </datalist>
    </>
  );
}

function ProfileSelect({
  id,
  profiles,
  value,
  onChange,
}: {
  id: string;
  profiles: readonly ProfileChoice[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {profiles.map((p) => (
        <option key={p.name} value={p.name}>
          {p.description === undefined || p.description === '' ? p.name : `${p.name}: ${p.description}`}
        </option>
      ))}
    </select>
  );
}

/**
 * Creates a game server from a profile in a namespace the role may create in (`namespaces`:
 * '*' for any, then typed; else chosen). The name is optional: the control plane picks one.
 */
export function CreateDialog({
  namespaces,
  known,
  initialNamespace,
  onClose,
  onCreated,
}: {
  namespaces: '*' | string[];
  known: readonly string[];
  initialNamespace: string;
  onClose: () => void;
  onCreated: (created: GameServer | undefined) => void;
}) {
  const id = useId();
  const profiles = useLoad(loadProfiles);
  const [profile, setProfile] = useState('');
  const [namespace, setNamespace] = useState(initialNamespace);
  const [name, setName] = useState('');
  const created = useRef<GameServer | undefined>(undefined);
  const { busy, error, setError, run } = useAction(() => onCreated(created.current));
  // Until one is chosen, the select shows (and the form sends) the first profile.
  const chosen = profile !== '' ? profile : profiles.state === 'done' ? (profiles.data[0]?.name ?? '') : '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problem = problemOf(chosen, namespace.trim(), name.trim());
    if (problem !== undefined) return setError(problem);
    void run(async () => {
      created.current = await createServer(namespace.trim(), chosen, name.trim() === '' ? undefined : name.trim());
    });
  };
  return (
    <Modal title="Create a game server" onClose={onClose}>
      {profiles.state === 'loading' && <Loading what="the profiles" />}
      {profiles.state === 'error' && <ErrorNotice>{profiles.message}</ErrorNotice>}
      {profiles.state === 'done' && profiles.data.length === 0 && (
        <ErrorNotice>There is no profile to create a game server from; an admin adds one under Profiles.</ErrorNotice>
      )}
      {profiles.state === 'done' && profiles.data.length > 0 && (
        <form className="form" onSubmit={submit} noValidate>
          <label htmlFor={`${id}-profile`}>Profile</label>
          <ProfileSelect id={`${id}-profile`} profiles={profiles.data} value={chosen} onChange={setProfile} />
          <label htmlFor={`${id}-namespace`}>Namespace</label>
          <NamespaceField
            id={`${id}-namespace`}
            namespaces={namespaces}
            known={known}
            value={namespace}
            onChange={setNamespace}
          />
          <label htmlFor={`${id}-name`}>Name (optional)</label>
          <input
            id={`${id}-name`}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${id}-name-hint`}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <p id={`${id}-name-hint`} className="why">
            Left empty, the name is the profile's and a random suffix.
          </p>
          {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
          <div className="actions">
            <button type="submit" className="button" disabled={busy}>
              Create
            </button>
            <button type="button" className="button button-secondary" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
