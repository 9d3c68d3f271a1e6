/**
 * Label and field selectors with the grammar of k8s.io/apimachinery/pkg/labels and /fields.
 */
import { labelValueErrors, qualifiedNameErrors } from './validation.js';

export type Operator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type LabelSelector = Requirement[];

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

type Token =
  | { kind: 'id'; text: string }
  | { kind: 'op'; text: '!' | '=' | '==' | '!=' | '<' | '>' | '(' | ')' | ',' }
  | { kind: 'end' };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two });
        i += 2;
      } else {
        tokens.push({ kind: 'op', text: c as '!' | '=' | '(' | ')' | ',' | '<' | '>' });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !SPECIAL.has(input[j] as string) && !isSpace(input[j] as string)) j++;
    tokens.push({ kind: 'id', text: input.slice(i, j) });
    i = j;
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

/**
 * Parses a label selector such as `app=web,tier in (a,b),!legacy`. An empty string selects
 * everything. Throws SelectorError with the message Kubernetes would give.
 */
export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const next = (): Token => tokens[pos++] as Token;
  const describe = (t: Token): string => (t.kind === 'end' ? 'end of string' : t.text);
  const requirements: Requirement[] = [];
  if (peek().kind === 'end') return requirements;

  for (;;) {
    let negate = false;
    if (peek().kind === 'op' && (peek() as { text: string }).text === '!') {
      negate = true;
      next();
    }
    const keyToken = next();
    if (keyToken.kind !== 'id') throw new SelectorError(`found '${describe(keyToken)}', expected: identifier`);
    const key = keyToken.text;
    checkKey(key);
    const after = peek();
    if (after.kind === 'end' || (after.kind === 'op' && after.text === ',')) {
      requirements.push({ key, operator: negate ? '!' : 'exists', values: [] });
    } else {
      if (negate) throw new SelectorError(`found '${describe(after)}', expected: ',' or 'end of string'`);
      const opToken = next();
      let operator: Operator;
      if (opToken.kind === 'id' && (opToken.text === 'in' || opToken.text === 'notin')) operator = opToken.text;
      else if (opToken.kind === 'op' && (opToken.text === '=' || opToken.text === '==' || opToken.text === '!='))
        operator = opToken.text;
      else if (opToken.kind === 'op' && opToken.text === '<') operator = 'lt';
      else if (opToken.kind === 'op' && opToken.text === '>') operator = 'gt';
      else throw new SelectorError(`found '${describe(opToken)}', expected: in, notin, =, ==, !=, gt, lt`);

      let values: string[];
      if (operator === 'in' || operator === 'notin') {
        const open = next();
        if (!(open.kind === 'op' && open.text === '('))
          throw new SelectorError(`found '${describe(open)}', expected: '('`);
        values = [];
        if (peek().kind === 'op' && (peek() as { text: string }).text === ')') {
          next();
          values.push('');
        } else {
          for (;;) {
            const value = peek();
            if (value.kind === 'id') {
              values.push(value.text);
              next();
            } else {
              values.push('');
            }
            const sep = next();
            if (sep.kind === 'op' && sep.text === ')') break;
            if (!(sep.kind === 'op' && sep.text === ','))
              throw new SelectorError(`found '${describe(sep)}', expected: ',' or ')'`);
          }
        }
      } else {
        const value = peek();
        if (value.kind === 'id') {
          values = [value.text];
          next();
        } else if (value.kind === 'end' || (value.kind === 'op' && value.text === ',')) {
          values = [''];
        } else {
          throw new SelectorError(`found '${describe(value)}', expected: identifier`);
        }
      }
      for (const value of values) checkValue(value);
      if (operator === 'gt' || operator === 'lt') {
        if (!/^-?\d+$/.test(values[0] ?? '')) {
          throw new SelectorError(`for 'Gt', 'Lt' operators, the value must be an integer`);
        }
      }
      requirements.push({ key, operator, values: [...new Set(values)].sort() });
    }
    const sep = next();
    if (sep.kind === 'end') break;
    if (!(sep.kind === 'op' && sep.text === ','))
      throw new SelectorError(`found '${describe(sep)}', expected: ',' or 'end of string'`);
  }
  return requirements;
}

function checkKey(key: string): void {
  const errors = qualifiedNameErrors(key);
  if (errors.length) throw new SelectorError(`key: Invalid value: "${key}": ${errors.join('; ')}`);
}

function checkValue(value: string): void {
  const errors = labelValueErrors(value);
  if (errors.length) throw new SelectorError(`values[0]: Invalid value: "${value}": ${errors.join('; ')}`);
}

export function matchesRequirement(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case '==':
    case 'in':
      return has && req.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !req.values.includes(value as string);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value as string)) return false;
      const actual = Number(value);
      const bound = Number(req.values[0]);
      return req.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const actual = labels ?? {};
  return selector.every((req) => matchesRequirement(req, actual));
}

/** A `metav1.LabelSelector` object, as in Deployments or GameServerAllocation selectors. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export function selectorFromObject(selector: LabelSelectorObject | undefined): LabelSelector {
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    requirements.push({ key, operator: '=', values: [value] });
  for (const expr of selector?.matchExpressions ?? []) {
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[expr.operator];
    if (!operator) throw new SelectorError(`"${expr.operator}" is not a valid label selector operator`);
    requirements.push({ key: expr.key, operator, values: expr.values ?? [] });
  }
  return requirements;
}

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/**
 * Parses a field selector such as `metadata.name=foo,metadata.namespace!=bar`; values may
 * escape `\`, `,` and `=` with a backslash, as in k8s.io/apimachinery/pkg/fields.
 */
export function parseFieldSelector(input: string): FieldRequirement[] {
  const result: FieldRequirement[] = [];
  if (input.trim() === '') return result;
  for (const part of splitUnescaped(input, ',')) {
    const match = /^(.*?)(==|!=|=)(.*)$/s.exec(part);
    if (!match) throw new SelectorError(`invalid selector: '${input}'; can't understand '${part}'`);
    const field = (match[1] ?? '').trim();
    const operator = match[2] === '!=' ? '!=' : '=';
    result.push({ field, operator, value: unescape(match[3] ?? '') });
  }
  return result;
}

function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    if (c === '\\' && i + 1 < input.length) {
      current += c + (input[i + 1] as string);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

export function matchesFields(requirements: FieldRequirement[], fields: Readonly<Record<string, string>>): boolean {
  return requirements.every((req) => {
    const actual = fields[req.field] ?? '';
    return req.operator === '=' ? actual === req.value : actual !== req.value;
  });
}
