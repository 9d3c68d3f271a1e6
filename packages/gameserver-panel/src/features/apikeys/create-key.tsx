import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { DNS_LABEL_MAX_LENGTH, DNS_LABEL_RULE, isDnsLabel } from '@gsp/platform-contract/identifiers';
import { ErrorNotice, ExpiryField, expiresAtOf, failure, NO_EXPIRY } from '@gsp/ui';
import type { Expiry } from '@gsp/ui';
import { createApiKey, expiresInOf } from './api';
import type { CreatedKey } from './api';

/** The key's name, its hint and, after a bad one, what is wrong with it. */
function NameField({
  id,
  value,
  problem,
  whyId,
  onChange,
}: {
  id: string;
  value: string;
  problem: string | undefined;
  whyId: string | undefined;
  onChange: (name: string) => void;
}) {
  const described = [`${id}-hint`, problem === undefined ? undefined : `${id}-error`, whyId];
  return (
    <>
      <label htmlFor={id}>Name</label>
      <input
        id={id}
        name="name"
        autoComplete="off"
        spellCheck={false}
        maxLength={DNS_LABEL_MAX_LENGTH}
        aria-invalid={problem === undefined ? undefined : true}
        aria-describedby={described.filter(Boolean).join(' ')}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <p className="why" id={`${id}-hint`}>
        Lower-case letters, digits and &quot;-&quot;; it names the key in the list and in the audit log.
      </p>
      {problem !== undefined && (
        <p className="key-problem" id={`${id}-error`}>
          {problem}
        </p>
      )}
    </>
  );
}

/**
 * Creates a key: a name, a role and an expiry. The answer (with the key's value) goes to
 * `onCreated`, which shows it once; the form keeps nothing of it. `why`: why this role cannot.
 */
export function CreateKeyForm({
  roles,
  why,
  onCreated,
}: {
  roles: readonly string[];
  why: string | undefined;
  onCreated: (created: CreatedKey) => void;
}) {
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [expiry, setExpiry] = useState<Expiry>(NO_EXPIRY);
  const [nameProblem, setNameProblem] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const ids = useId();
  const allowed = why === undefined;
  const whyId = allowed ? undefined : `${ids}-why`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim();
    const problem = isDnsLabel(wanted) ? undefined : `A key name is ${DNS_LABEL_RULE}.`;
    setNameProblem(problem);
    setError(undefined);
    const at = expiresAtOf(expiry);
    if ('problem' in at) setError(at.problem);
    if (problem !== undefined || 'problem' in at) return;
    setBusy(true);
    try {
      const expiresIn = at.expiresAt === undefined ? {} : { expiresIn: expiresInOf(at.expiresAt) };
      onCreated(await createApiKey({ name: wanted, role, ...expiresIn }));
      setName('');
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form key-create" aria-labelledby={`${ids}-title`} noValidate onSubmit={(e) => void submit(e)}>
      <h3 id={`${ids}-title`}>Create an API key</h3>
      <fieldset className="key-fieldset" disabled={!allowed} aria-describedby={whyId}>
        <NameField id={`${ids}-name`} value={name} problem={nameProblem} whyId={whyId} onChange={setName} />
        <label htmlFor={`${ids}-role`}>Role (what the key may do)</label>
        <select id={`${ids}-role`} name="role" value={role} onChange={(e) => setRole(e.target.value)}>
          {roles.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <ExpiryField
          label="Expires after"
          value={expiry}
          onChange={setExpiry}
          // The page cannot know the control plane's limit; the key's card shows the expiry it got.
          neverLabel="The longest lifetime the control plane allows (never, if it sets no limit)"
        />
        {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
        <div className="actions">
          <button type="submit" className="button" disabled={!allowed || busy} aria-describedby={whyId}>
            Create key
          </button>
        </div>
      </fieldset>
      {whyId !== undefined && (
        <p className="why" id={whyId}>
          {why}
        </p>
      )}
    </form>
  );
}
