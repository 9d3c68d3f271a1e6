import { useId } from 'react';
import { AGONES_STATES } from '@gsp/control-plane/contract';

export interface FilterValues {
  namespace: string;
  state: string;
  labels: string;
}

/** Namespace, state and label filters; `labelError` is the sentence for a malformed label filter. */
export function Filters({
  values,
  namespaces,
  labelError,
  onChange,
}: {
  values: FilterValues;
  namespaces: readonly string[];
  labelError: string | undefined;
  onChange: (values: FilterValues) => void;
}) {
  const id = useId();
  return (
    <form className="filters" role="search" aria-label="Filter game servers" onSubmit={(e) => e.preventDefault()}>
      <div className="filter">
        <label htmlFor={`${id}-ns`}>Namespace</label>
        <select
          id={`${id}-ns`}
          value={values.namespace}
          onChange={(e) => onChange({ ...values, namespace: e.target.value })}
        >
          <option value="">All namespaces</option>
          {namespaces.map((ns) => (
            <option key={ns} value={ns}>
              {ns}
            </option>
          ))}
        </select>
      </div>
      <div className="filter">
        <label htmlFor={`${id}-state`}>State</label>
        <select
          id={`${id}-state`}
          value={values.state}
          onChange={(e) => onChange({ ...values, state: e.target.value })}
        >
          <option value="">Any state</option>
          {AGONES_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className="filter filter-labels">
        <label htmlFor={`${id}-labels`}>Labels</label>
        <input
          id={`${id}-labels`}
          className="code"
          placeholder="key=value, key!=value"
          spellCheck={false}
          autoComplete="off"
          value={values.labels}
          aria-invalid={labelError !== undefined}
          aria-describedby={labelError === undefined ? undefined : `${id}-labels-error`}
          onChange={(e) => onChange({ ...values, labels: e.target.value })}
        />
        {labelError !== undefined && (
          <p id={`${id}-labels-error`} className="field-error" role="alert">
            {labelError}
          </p>
        )}
      </div>
    </form>
  );
}
