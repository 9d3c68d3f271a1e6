import { FieldError } from './field-errors';
import type { FieldErrors } from './field-errors';
import { NEW_PORT, PROTOCOLS } from './draft';
import type { FieldKey, PortDraft, ProfileDraft } from './draft';

interface SectionProps {
  draft: ProfileDraft;
  errors: FieldErrors;
  onChange: (patch: Partial<ProfileDraft>) => void;
}

/** A one-line text field with its label and its problems. */
function TextField({
  errors,
  field,
  label,
  value,
  onChange,
  code = false,
}: {
  errors: FieldErrors;
  field: FieldKey;
  label: string;
  value: string;
  onChange: (value: string) => void;
  code?: boolean;
}) {
  return (
    <div className="profile-field">
      <label htmlFor={errors.id(field)}>{label}</label>
      <input
        {...errors.control(field)}
        className={code ? 'code' : undefined}
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <FieldError errors={errors} field={field} />
    </div>
  );
}

/** Name (a new profile only), description and image. */
export function GeneralFields({ draft, errors, onChange, isNew }: SectionProps & { isNew: boolean }) {
  return (
    <>
      {isNew && (
        <TextField
          errors={errors}
          field="name"
          label='Name (lower-case letters, digits and "-")'
          value={draft.name}
          onChange={(name) => onChange({ name })}
        />
      )}
      <TextField
        errors={errors}
        field="description"
        label="Description (optional)"
        value={draft.description}
        onChange={(description) => onChange({ description })}
      />
      <TextField
        errors={errors}
        field="image"
        label="Container image"
        code
        value={draft.image}
        onChange={(image) => onChange({ image })}
      />
    </>
  );
}

function PortRow({
  port,
  index,
  errors,
  onChange,
  onRemove,
}: {
  port: PortDraft;
  index: number;
  errors: FieldErrors;
  onChange: (port: PortDraft) => void;
  onRemove?: () => void;
}) {
  const key = (part: 'name' | 'containerPort' | 'protocol') => `ports/${index}/${part}` as const;
  return (
    <li className="profile-port">
      <TextField
        errors={errors}
        field={key('name')}
        label={`Port ${index + 1} name`}
        value={port.name}
        onChange={(name) => onChange({ ...port, name })}
      />
      <TextField
        errors={errors}
        field={key('containerPort')}
        label={`Port ${index + 1} container port`}
        value={port.containerPort}
        onChange={(containerPort) => onChange({ ...port, containerPort })}
      />
      <div className="profile-field">
        <label htmlFor={errors.id(key('protocol'))}>Port {index + 1} protocol</label>
        <select
          {...errors.control(key('protocol'))}
          value={port.protocol}
          onChange={(e) => onChange({ ...port, protocol: e.target.value })}
        >
          {PROTOCOLS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <FieldError errors={errors} field={key('protocol')} />
      </div>
      {onRemove !== undefined && (
        <button type="button" className="button button-secondary profile-port-remove" onClick={onRemove}>
          Remove port {index + 1}
        </button>
      )}
    </li>
  );
}

/** The ports, 1 to 16: each a name, a container port and a protocol. */
export function PortFields({ draft, errors, onChange }: SectionProps) {
  const set = (ports: PortDraft[]) => onChange({ ports });
  return (
    <fieldset
      className="profile-fieldset"
      aria-describedby={errors.of('ports').length > 0 ? `${errors.id('ports')}-error` : undefined}
    >
      <legend>Ports</legend>
      <FieldError errors={errors} field="ports" />
      <ol className="profile-ports">
        {draft.ports.map((port, i) => (
          <PortRow
            // Rows have no identity but their place; a removal renumbers those after it.
            key={i}
            port={port}
            index={i}
            errors={errors}
            onChange={(changed) => set(draft.ports.map((p, j) => (j === i ? changed : p)))}
            {...(draft.ports.length > 1 ? { onRemove: () => set(draft.ports.filter((_, j) => j !== i)) } : {})}
          />
        ))}
      </ol>
      {draft.ports.length < 16 && (
        <button
          type="button"
          className="button button-secondary"
          onClick={() => set([...draft.ports, { ...NEW_PORT, name: '' }])}
        >
          Add a port
        </button>
      )}
    </fieldset>
  );
}

/** CPU and memory requests and limits, and the player capacity. */
export function ResourceFields({ draft, errors, onChange }: SectionProps) {
  return (
    <fieldset className="profile-fieldset">
      <legend>Resources and players (optional; quantities such as 500m, 2, 512Mi)</legend>
      <div className="profile-grid">
        <TextField
          errors={errors}
          field="resources/requests/cpu"
          label="CPU request"
          value={draft.cpuRequest}
          onChange={(cpuRequest) => onChange({ cpuRequest })}
        />
        <TextField
          errors={errors}
          field="resources/limits/cpu"
          label="CPU limit"
          value={draft.cpuLimit}
          onChange={(cpuLimit) => onChange({ cpuLimit })}
        />
        <TextField
          errors={errors}
          field="resources/requests/memory"
          label="Memory request"
          value={draft.memoryRequest}
          onChange={(memoryRequest) => onChange({ memoryRequest })}
        />
        <TextField
          errors={errors}
          field="resources/limits/memory"
          label="Memory limit"
          value={draft.memoryLimit}
          onChange={(memoryLimit) => onChange({ memoryLimit })}
        />
        <TextField
          errors={errors}
          field="players"
          label="Player capacity"
          value={draft.capacity}
          onChange={(capacity) => onChange({ capacity })}
        />
      </div>
    </fieldset>
  );
}

/** Everything else of the profile, as a JSON object. */
export function RestField({ draft, errors, onChange, hintId }: SectionProps & { hintId: string }) {
  return (
    <div className="profile-field">
      <label htmlFor={errors.id('rest')}>Other settings (JSON)</label>
      <p className="why" id={hintId}>
        env, health, storage, restartCommand, actions and snapshot, as the control plane&apos;s README describes them.
      </p>
      <textarea
        {...errors.control('rest', hintId)}
        className="code profile-json"
        rows={10}
        spellCheck={false}
        value={draft.rest}
        onChange={(e) => onChange({ rest: e.target.value })}
      />
      <FieldError errors={errors} field="rest" />
    </div>
  );
}
