import type { FieldKey, Problem } from './draft';

/** Where problems are shown: each field's sentences, and the ids that tie them to its control. */
export class FieldErrors {
  constructor(
    private readonly base: string,
    readonly problems: readonly Problem[],
  ) {}

  /** The id of the field's control. */
  id(field: FieldKey): string {
    return `${this.base}-${field.replaceAll('/', '-')}`;
  }

  /** The sentences about `field`. */
  of(field: FieldKey): string[] {
    return this.problems.filter((p) => p.field === field).map((p) => p.message);
  }

  /** The control's id, `aria-invalid` and `aria-describedby` (its hint, then its problems). */
  control(field: FieldKey, hint?: string) {
    const invalid = this.of(field).length > 0;
    const described = [hint, invalid ? `${this.id(field)}-error` : undefined].filter(Boolean).join(' ');
    return {
      id: this.id(field),
      'aria-invalid': invalid ? true : undefined,
      'aria-describedby': described === '' ? undefined : described,
    };
  }
}

/** The sentences about one field, under it; the control points here with `aria-describedby`. */
export function FieldError({ errors, field }: { errors: FieldErrors; field: FieldKey }) {
  const messages = errors.of(field);
  if (messages.length === 0) return null;
  return (
    <p className="profile-field-error" id={`${errors.id(field)}-error`}>
      {messages.join(' ')}
    </p>
  );
}
