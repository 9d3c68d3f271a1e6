import { useCallback, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ConfirmDialog, ErrorNotice, Loading, failure, useLoad } from '@gsp/ui';
import { loadMembers, putMember, removeMember, ROLE_NAMES, ROLES } from './api';
import type { Member, Role } from './api';

const isRole = (text: string): text is Role => (ROLES as readonly string[]).includes(text);

function RoleSelect({
  id,
  label,
  value,
  onChange,
}: {
  id?: string;
  label?: string;
  value: Role;
  onChange: (role: Role) => void;
}) {
  return (
    <select
      id={id}
      aria-label={label}
      value={value}
      onChange={(e) => {
        if (isRole(e.target.value)) onChange(e.target.value);
      }}
    >
      {ROLES.map((role) => (
        <option key={role} value={role}>
          {ROLE_NAMES.get(role)}
        </option>
      ))}
    </select>
  );
}

function RemoveDialog({
  org,
  subject,
  onClose,
  onDone,
}: {
  org: string;
  subject: string;
  onClose: () => void;
  onDone: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Remove ${subject} from tenant ${org}?`}
      confirmLabel="Remove member"
      danger
      onConfirm={() => removeMember(org, subject)}
      onClose={onClose}
      onDone={onDone}
    >
      They lose every right in tenant {org} at their next request: its clusters, kubectl through the proxy and this
      tenant in the console.
    </ConfirmDialog>
  );
}

function MemberRow({
  org,
  member,
  onChanged,
  onRemove,
}: {
  org: string;
  member: Member;
  onChanged: () => void;
  onRemove: (subject: string) => void;
}) {
  const [role, setRole] = useState<Role>(member.role);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const change = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await putMember(org, member.subject, role);
      onChanged();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="member">
      <span className="subject">{member.subject}</span>
      <span className="member-controls">
        <RoleSelect label={`Role of ${member.subject}`} value={role} onChange={setRole} />
        <button
          type="button"
          className="button button-secondary"
          disabled={busy || role === member.role}
          onClick={() => void change()}
        >
          Change role
        </button>
        <button type="button" className="button button-secondary" onClick={() => onRemove(member.subject)}>
          Remove
        </button>
      </span>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
    </li>
  );
}

function AddMember({ org, onAdded }: { org: string; onAdded: () => void }) {
  const [subject, setSubject] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const ids = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = subject.trim();
    if (wanted === '') {
      setError("Type the new member's subject (the sub of their sign-in token).");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await putMember(org, wanted, role);
      setSubject('');
      onAdded();
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="form" aria-labelledby={`${ids}-title`} onSubmit={(e) => void submit(e)}>
      <h4 id={`${ids}-title`}>Add a member</h4>
      <label htmlFor={`${ids}-subject`}>Subject (the sub of their sign-in token)</label>
      <input
        id={`${ids}-subject`}
        name="subject"
        autoComplete="off"
        spellCheck={false}
        value={subject}
        onChange={(e) => setSubject(e.target.value)}
      />
      <label htmlFor={`${ids}-role`}>Role</label>
      <RoleSelect id={`${ids}-role`} value={role} onChange={setRole} />
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          Add member
        </button>
      </div>
    </form>
  );
}

/** The tenant's members, for its admins: roles changed, members added and removed. */
export function Members({ org, version }: { org: string; version: number }) {
  const [own, setOwn] = useState(0);
  const changed = useCallback(() => setOwn((n) => n + 1), []);
  const load = useCallback((signal: AbortSignal) => loadMembers(org, signal), [org]);
  const members = useLoad(load, version + own);
  // Held here, not in the row: a row is made again when its member's role changes (its key), and a
  // confirmation open at that moment must stay open.
  const [removing, setRemoving] = useState<string | undefined>();
  const closeRemove = useCallback(() => setRemoving(undefined), []);
  return (
    <>
      {members.state === 'loading' && <Loading what="the members" />}
      {members.state === 'error' && <ErrorNotice>{members.message}</ErrorNotice>}
      {members.state === 'done' && (
        <ul className="members">
          {members.data.map((member) => (
            // Keyed by role too, so a role changed elsewhere resets the row's selection.
            <MemberRow
              key={`${member.subject} ${member.role}`}
              org={org}
              member={member}
              onChanged={changed}
              onRemove={setRemoving}
            />
          ))}
        </ul>
      )}
      {removing !== undefined && (
        <RemoveDialog
          org={org}
          subject={removing}
          onClose={closeRemove}
          onDone={() => {
            setRemoving(undefined);
            changed();
          }}
        />
      )}
      <AddMember org={org} onAdded={changed} />
    </>
  );
}
