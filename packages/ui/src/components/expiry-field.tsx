import { useId } from 'react';

/** What the expiry field holds: a preset's key, and the custom local date-time when `preset` is `custom`. */
export interface Expiry {
  preset: string;
  custom: string;
}

export const NO_EXPIRY: Expiry = { preset: 'never', custom: '' };

const PRESETS = new Map<string, { label: string; minutes: number | null }>([
  ['never', { label: 'Never', minutes: null }],
  ['10m', { label: '10 minutes', minutes: 10 }],
  ['1h', { label: '1 hour', minutes: 60 }],
  ['8h', { label: '8 hours', minutes: 8 * 60 }],
  ['24h', { label: '24 hours', minutes: 24 * 60 }],
  ['custom', { label: 'Custom date and time', minutes: null }],
]);

/**
 * The `expiresAt` to send (RFC 3339, UTC), none for "never", or why it cannot be sent, in a
 * sentence. A custom value is the browser's local time, as `<input type="datetime-local">` gives it.
 */
export function expiresAtOf(expiry: Expiry, now = Date.now()): { expiresAt?: string } | { problem: string } {
  if (expiry.preset === 'custom') {
    // A date-time without an offset is local time (ECMAScript's date-time string format).
    const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(expiry.custom)
      ? new Date(expiry.custom).getTime()
      : Number.NaN;
    if (Number.isNaN(at)) return { problem: 'Choose the date and time of the expiry.' };
    if (at <= now) return { problem: 'The expiry must be in the future.' };
    return { expiresAt: new Date(at).toISOString() };
  }
  const minutes = PRESETS.get(expiry.preset)?.minutes ?? null;
  return minutes === null ? {} : { expiresAt: new Date(now + minutes * 60_000).toISOString() };
}

/**
 * A preset expiry, or a custom local date and time to the second. `neverLabel` says what "never"
 * means where the field is used (default "Never").
 */
export function ExpiryField({
  label,
  value,
  onChange,
  neverLabel,
}: {
  label: string;
  value: Expiry;
  onChange: (expiry: Expiry) => void;
  neverLabel?: string;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={`${id}-preset`}>{label}</label>
      <select
        id={`${id}-preset`}
        name="expiry"
        value={value.preset}
        onChange={(e) => onChange({ ...value, preset: e.target.value })}
      >
        {[...PRESETS].map(([key, preset]) => (
          <option key={key} value={key}>
            {key === 'never' && neverLabel !== undefined ? neverLabel : preset.label}
          </option>
        ))}
      </select>
      {value.preset === 'custom' && (
        <>
          <label htmlFor={`${id}-custom`}>Date and time (your local time)</label>
          <input
            id={`${id}-custom`}
            name="expiresAt"
            type="datetime-local"
            step="1"
            required
            value={value.custom}
            onChange={(e) => onChange({ ...value, custom: e.target.value })}
          />
        </>
      )}
    </>
  );
}
