import { useCallback, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ConfirmDialog, ErrorNotice, Loading, failure, useLoad } from '@gsp/ui';
import { loadMembers, memberSubject, putMember, removeMember, ROLE_NAMES, ROLES } from './api';
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

/** A member by name where the platform knows it, with the subject their rights follow. */
function MemberName({ member }: { member: Member }) {
  if (member.name === undefined) return <span className="subject code">{member.subject}</span>;
  return (
    <span className="subject">
      <strong>{member.name}</strong> <span className="code subject-id">{member.subject}</span>
    </span>
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
      <MemberName member={member} />
      <span className="member-controls">
        <RoleSelect label={`Role of ${member.name ?? member.subject}`} value={role} onChange={setRole} />
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

/**
 * Adds a member. With the platform's OIDC issuer known, what is typed is a user's `sub` there (their
 * id at the identity provider), added as `<issuer>#<sub>`; a typed subject with `#` is taken as is.
 */
function AddMember({ org, issuer, onAdded }: { org: string; issuer: string | null; onAdded: () => void }) {
  const [subject, setSubject] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const ids = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = subject.trim();
    if (wanted === '') {
      setError(issuer === null ? "Type the new member's subject." : "Type the new member's user id.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await putMember(org, memberSubject(wanted, issuer), role);
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
      <label htmlFor={`${ids}-subject`}>{issuer === null ? 'Subject' : 'User id'}</label>
      <input
        id={`${ids}-subject`}
        name="subject"
        autoComplete="off"
        spellCheck={false}
        aria-describedby={`${ids}-subject-hint`}
        value={subject}
        onChange={(e) => setSubject(e.target.value)}
      />
      <p className="hint" id={`${ids}-subject-hint`}>
        {issuer === null ? (
          'Their subject, exactly as the API server names them (the sub of their bearer token).'
        ) : (
          <>
            Their id at <span className="code">{issuer}</span>, where they sign in: the{' '}
            <span className="code">sub</span> of their sign-in token, such as <span className="code">alice</span>. They
            are added as <span className="code">{issuer}#alice</span>; a subject with <span className="code">#</span> is
            taken as typed.
          </>
        )}
      </p>
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

/** The members of a tenant as a platform admin reads them: names, subjects and roles, nothing to change. */
export function MembersReadOnly({ org, version }: { org: string; version: number }) {
  const load = useCallback((signal: AbortSignal) => loadMembers(org, signal), [org]);
  const members = useLoad(load, version);
  if (members.state === 'loading') return <Loading what={`the members of ${org}`} />;
  if (members.state === 'error') return <ErrorNotice>{members.message}</ErrorNotice>;
  if (members.data.members.length === 0) return <p>This tenant has no members.</p>;
  return (
    <ul className="members">
      {members.data.members.map((member) => (
        <li key={member.subject} className="member">
          <MemberName member={member} />
          <span className="member-role">{ROLE_NAMES.get(member.role) ?? member.role}</span>
        </li>
      ))}
    </ul>
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
          {members.data.members.map((member) => (
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
      {/* Once the list is here: it says whose ids the field takes. */}
      {members.state === 'done' && <AddMember org={org} issuer={members.data.issuer} onAdded={changed} />}
    </>
  );
}
