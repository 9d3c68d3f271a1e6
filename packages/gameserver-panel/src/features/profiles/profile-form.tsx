import { useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { failure } from '@gsp/ui';
import { putProfile, refusedFields } from './api';
import type { Profile } from './api';
import { bodyOf, draftOf, fieldOf } from './draft';
import type { Problem, ProfileDraft } from './draft';
import { FieldErrors } from './field-errors';
import { GeneralFields, PortFields, ResourceFields, RestField } from './profile-fields';

/** The problems of a refused PUT: each field the control plane named, else its sentence alone. */
function problemsOf(err: unknown): Problem[] {
  const fields = refusedFields(err);
  if (fields.length > 0)
    return fields.map((f) => {
      const field = fieldOf(f);
      return field === undefined ? { message: f.detail } : { field, message: f.detail };
    });
  return [{ message: failure(err) }];
}

/** What is wrong, at the top of the form: announced, focused, each item a way to its field. */
function Summary({ errors, shown }: { errors: FieldErrors; shown: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (shown > 0) ref.current?.focus();
  }, [shown]);
  const { problems } = errors;
  if (problems.length === 0) return null;
  return (
    <div className="notice notice-error profile-summary" role="alert" tabIndex={-1} ref={ref}>
      <p>The profile was not saved: {problems.length === 1 ? 'one problem' : `${problems.length} problems`} to fix.</p>
      <ul>
        {problems.map((p, i) => (
          <li key={i}>
            {p.field === undefined ? (
              p.message
            ) : (
              <button
                type="button"
                className="profile-summary-link"
                onClick={() => document.getElementById(errors.id(p.field ?? 'rest'))?.focus()}
              >
                {p.message}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Edits `profile`, or a new one without it, and PUTs it. The control plane judges the profile:
 * each field its refusal names gets its sentence (and `aria-invalid`), and all are summed up on top.
 */
export function ProfileForm({
  profile,
  taken,
  onSaved,
  onCancel,
}: {
  profile?: Profile;
  taken: ReadonlySet<string>;
  onSaved: (saved: Profile) => void;
  onCancel: () => void;
}) {
  const isNew = profile === undefined;
  const [draft, setDraft] = useState<ProfileDraft>(() => draftOf(profile));
  const [problems, setProblems] = useState<Problem[]>([]);
  const [shown, setShown] = useState(0);
  const [busy, setBusy] = useState(false);
  const ids = useId();
  const errors = new FieldErrors(ids, problems);
  const change = (patch: Partial<ProfileDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const refuse = (found: Problem[]) => {
    setProblems(found);
    setShown((n) => n + 1);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checked = bodyOf(draft, isNew, taken);
    if ('problems' in checked) return refuse(checked.problems);
    setBusy(true);
    try {
      const saved = await putProfile(isNew ? draft.name.trim() : profile.name, checked.body);
      setProblems([]);
      onSaved(saved);
    } catch (err) {
      refuse(problemsOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form profile-form" aria-labelledby={`${ids}-title`} noValidate onSubmit={(e) => void submit(e)}>
      <h3 id={`${ids}-title`}>{isNew ? 'New profile' : `Edit profile ${profile.name}`}</h3>
      <Summary errors={errors} shown={shown} />
      <GeneralFields draft={draft} errors={errors} onChange={change} isNew={isNew} />
      <PortFields draft={draft} errors={errors} onChange={change} />
      <ResourceFields draft={draft} errors={errors} onChange={change} />
      <RestField draft={draft} errors={errors} onChange={change} hintId={`${ids}-rest-hint`} />
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {isNew ? 'Create profile' : 'Save profile'}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
