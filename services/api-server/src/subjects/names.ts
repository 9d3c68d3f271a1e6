import { TtlCache } from '@gsp/service-kit';
import type { Queryable } from '../db/tx.js';

/**
 * Keeps the name a console sign-in gave `subject` (the session's display name), for the pages to
 * show instead of the subject. A name that is only the subject again (the identity provider sent
 * none) is not kept.
 */
export async function rememberName(db: Queryable, subject: string, name: string): Promise<void> {
  if (name === subject) return;
  await db.query(
    `INSERT INTO subject_names (subject, name) VALUES ($1, $2)
     ON CONFLICT (subject) DO UPDATE SET name = EXCLUDED.name, updated_at = now()`,
    [subject, name],
  );
}

/** A name found is kept this long; a subject without one is asked again sooner, as its owner may sign in. */
const NAME_TTL_MS = 60_000;
const NO_NAME_TTL_MS = 5_000;

/** Subjects to names, where the platform knows them. */
export type Names = ReadonlyMap<string, string>;

/**
 * The names of subjects as reads answer them, remembered briefly so a hot read (the platform's flag
 * list) answers from memory. Names are for display only: a database that does not answer costs the
 * names, never the read.
 */
export class SubjectNames {
  private readonly cache = new TtlCache<string, string | null>({ ttlMs: NAME_TTL_MS, maxEntries: 10_000 });

  constructor(private readonly db: Queryable) {}

  /** The names of `subjects` that are known; synchronous when every one is remembered. */
  of(subjects: Iterable<string | null | undefined>): Names | Promise<Names> {
    const names = new Map<string, string>();
    const missing: string[] = [];
    for (const subject of subjects) {
      if (subject === null || subject === undefined || names.has(subject)) continue;
      const known = this.cache.get(subject);
      if (known === undefined) missing.push(subject);
      else if (known !== null) names.set(subject, known);
    }
    return missing.length === 0 ? names : this.lookUp(missing, names);
  }

  private async lookUp(subjects: string[], names: Map<string, string>): Promise<Names> {
    let rows: { subject: string; name: string }[];
    try {
      ({ rows } = await this.db.query<{ subject: string; name: string }>(
        'SELECT subject, name FROM subject_names WHERE subject = ANY($1)',
        [subjects],
      ));
    } catch {
      return names;
    }
    const found = new Map(rows.map((r) => [r.subject, r.name]));
    const now = Date.now();
    for (const subject of subjects) {
      const name = found.get(subject);
      this.cache.set(subject, name ?? null, name === undefined ? now + NO_NAME_TTL_MS : Infinity, now);
      if (name !== undefined) names.set(subject, name);
    }
    return names;
  }
}

/** `value` once `names` are known: at once when they are, so a synchronous read stays synchronous. */
export function withNames<T>(names: Names | Promise<Names>, value: (names: Names) => T): T | Promise<T> {
  return names instanceof Promise ? names.then(value) : value(names);
}
