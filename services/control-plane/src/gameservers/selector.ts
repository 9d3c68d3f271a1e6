import { DNS_SUBDOMAIN_REGEX } from '@gsp/platform-contract';

/**
 * Kubernetes label selectors (`?labelSelector=`), the equality- and set-based syntax of
 * `kubectl -l`: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined by commas.
 */
export type Requirement =
  { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | 'doesnotexist' };

export class SelectorError extends Error {
  override name = 'SelectorError';
}

/** A label key: an optional DNS-1123 subdomain prefix and '/', then a name. */
const KEY = new RegExp(`^(${DNS_SUBDOMAIN_REGEX}\\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`);
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function key(raw: string, selector: string): string {
  const k = raw.trim();
  if (!KEY.test(k) || k.length > 316)
    throw new SelectorError(`invalid label key ${JSON.stringify(k)} in selector ${JSON.stringify(selector)}`);
  return k;
}

function value(raw: string, selector: string): string {
  const v = raw.trim();
  if (!VALUE.test(v))
    throw new SelectorError(`invalid label value ${JSON.stringify(v)} in selector ${JSON.stringify(selector)}`);
  return v;
}

/** Splits on commas outside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of selector) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (depth < 0) throw new SelectorError(`unbalanced parentheses in selector ${JSON.stringify(selector)}`);
    if (c === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += c;
  }
  if (depth !== 0) throw new SelectorError(`unbalanced parentheses in selector ${JSON.stringify(selector)}`);
  out.push(current);
  return out;
}

export function parseSelector(selector: string): Requirement[] {
  if (selector.trim() === '') return [];
  return terms(selector).map((term): Requirement => {
    const t = term.trim();
    if (t === '') throw new SelectorError(`empty requirement in selector ${JSON.stringify(selector)}`);
    const set = /^(.+?)\s+(in|notin)\s*\((.*)\)$/.exec(t);
    if (set) {
      const values = (set[3] as string).split(',').map((v) => value(v, selector));
      return { key: key(set[1] as string, selector), op: set[2] as 'in' | 'notin', values };
    }
    const equality = /^([^!=]+?)\s*(==|=|!=)\s*([^=]*)$/.exec(t);
    if (equality) {
      const op = equality[2] === '!=' ? 'notin' : 'in';
      return { key: key(equality[1] as string, selector), op, values: [value(equality[3] as string, selector)] };
    }
    if (t.startsWith('!')) return { key: key(t.slice(1), selector), op: 'doesnotexist' };
    return { key: key(t, selector), op: 'exists' };
  });
}

export function matches(
  requirements: readonly Requirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const own = labels ?? {};
  return requirements.every((r) => {
    const has = Object.hasOwn(own, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'doesnotexist':
        return !has;
      case 'in':
        return has && r.values.includes(own[r.key] as string);
      case 'notin':
        return !has || !r.values.includes(own[r.key] as string);
    }
  });
}
