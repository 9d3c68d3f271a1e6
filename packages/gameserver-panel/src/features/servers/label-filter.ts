/** One equality term of a label selector: `key=value`, `key==value` or `key!=value`. */
export interface LabelTerm {
  key: string;
  value: string;
  equal: boolean;
}

export type LabelFilter = { ok: true; terms: LabelTerm[] } | { ok: false; error: string };

// A label key: an optional DNS-subdomain prefix and `/`, then a name; a value: empty or a name.
const NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const KEY = `(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?/)?${NAME}`;
const TERM = new RegExp(`^(${KEY})\\s*(!=|==|=)\\s*(${NAME})?$`);

/**
 * Parses what a person typed as a label selector's equality terms, separated by commas (as
 * `kubectl get -l` takes them). Empty text: no filter. A malformed term: a sentence naming it.
 */
export function parseLabelFilter(text: string): LabelFilter {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, terms: [] };
  const terms: LabelTerm[] = [];
  for (const part of trimmed.split(',')) {
    const term = part.trim();
    const match = TERM.exec(term);
    if (match === null) {
      const shown = term === '' ? 'An empty term' : `"${term}"`;
      return {
        ok: false,
        error:
          `${shown} is not a label term: write key=value or key!=value, ` +
          'separated by commas (for example map=dust2,mode!=ranked).',
      };
    }
    terms.push({ key: match[1] ?? '', value: match[3] ?? '', equal: match[2] !== '!=' });
  }
  return { ok: true, terms };
}

/** Whether labels match every term; as in Kubernetes, a server without the label matches `!=` terms. */
export function matchesLabels(labels: Record<string, string>, terms: readonly LabelTerm[]): boolean {
  return terms.every((t) => {
    const value = Object.hasOwn(labels, t.key) ? labels[t.key] : undefined;
    return t.equal ? value === t.value : value !== t.value;
  });
}
