import { useId } from 'react';

/**
 * The argv an action's field holds: reserve's one duration, or a command's arguments one a line
 * (each line one argv element, passed as it is: the control plane never runs them through a shell).
 */
export function argvOf(text: string, kind: 'duration' | 'free'): string[] {
  if (kind === 'duration') return [text.trim()];
  return text.split('\n').filter((line) => line !== '');
}

/** The textarea grows with its lines up to this many, then scrolls. */
const MAX_ROWS = 10;

/** As many rows as the arguments have lines (one more for the next), so none is hidden. */
export function rowsFor(text: string): number {
  return Math.min(MAX_ROWS, Math.max(2, text.split('\n').length + 1));
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
          {/* Unwrapped: each line shown is one argument, never one argument shown as two. */}
          <textarea
            id={id}
            name="args"
            rows={rowsFor(value)}
            wrap="off"
            spellCheck={false}
            value={value}
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
          />
        </>
      )}
    </span>
  );
}
