import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ACTIONS } from '../actions';
import type { AuditFilter } from '../api';
import { NO_FILTER } from '../hooks/use-audit-feed';

/** The audit's filter: an action and an actor, applied (the actor trimmed) when submitted. */
export function AuditFilterForm({ onApply }: { onApply: (filter: AuditFilter) => void }) {
  const [draft, setDraft] = useState<AuditFilter>(NO_FILTER);
  const ids = useId();

  const apply = (e: FormEvent) => {
    e.preventDefault();
    onApply({ action: draft.action, actor: draft.actor.trim() });
  };

  return (
    <form className="form audit-filter" onSubmit={apply} aria-label="Filter the audit">
      <div className="audit-field">
        <label htmlFor={`${ids}-action`}>Action</label>
        <select
          id={`${ids}-action`}
          value={draft.action}
          onChange={(e) => setDraft((d) => ({ ...d, action: e.target.value }))}
        >
          <option value="">All actions</option>
          {[...ACTIONS].map(([action, label]) => (
            <option key={action} value={action}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="audit-field">
        <label htmlFor={`${ids}-actor`}>Actor (exactly as shown)</label>
        <input
          id={`${ids}-actor`}
          value={draft.actor}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setDraft((d) => ({ ...d, actor: e.target.value }))}
        />
      </div>
      <button type="submit" className="button">
        Filter
      </button>
    </form>
  );
}
