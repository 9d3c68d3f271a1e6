import { useId } from 'react';

/**
 * The argv an action's field holds: reserve's one duration, or a command's arguments one a line
 * (each line one argv element, passed as it is: the control plane never runs them through a shell).
 */
export function argvOf(text: string, kind: 'duration' | 'free'): string[] {
  if (kind === 'duration') return [text.trim()];
  return text.split('\n').filter((line) => line !== '');
}

interface Props {
  action: string;
  kind: 'duration' | 'free';
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}

/** The arguments of one action, labelled by it. */
export function ArgsField({ action, kind, value, onChange, disabled }: Props) {
  const id = useId();
  return (
    <span className="action-args">
      {kind === 'duration' ? (
        <>
          <label htmlFor={id}>How long ({action})</label>
          <input
            id={id}
            name="duration"
            required
            placeholder="5m"
            size={6}
            value={value}
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
          />
        </>
      ) : (
        <>
          <label htmlFor={id}>Arguments of {action}, one a line</label>
          <textarea
            id={id}
            name="args"
            rows={1}
            value={value}
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
          />
        </>
      )}
    </span>
  );
}
