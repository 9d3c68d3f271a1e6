/** One field of a request that failed validation, as answered in a problem's `errors` member. */
export interface FieldError {
  /** The part of the request the field is in. */
  in: 'body' | 'path' | 'query' | 'header';
  /** RFC 6901 JSON Pointer to the field within that part, as a URI fragment (RFC 9457's form): `#/role`. */
  pointer: string;
  /** What is wrong, naming what is allowed: `role must be one of admin, operator, viewer`. */
  detail: string;
}

/** A JSON Schema validation error as Fastify hands it over (TypeBox's and Ajv's share this shape). */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string | undefined;
}

/** Fastify's `validationContext` → the part of the request it names. */
const PARTS: Readonly<Record<string, FieldError['in']>> = {
  body: 'body',
  params: 'path',
  querystring: 'query',
  headers: 'header',
};
const WHOLE: Readonly<Record<FieldError['in'], string>> = {
  body: 'the body',
  path: 'the path',
  query: 'the query string',
  header: 'the headers',
};

const unescape = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** `/a/0/b` → `a[0].b`: how a reader names a field. */
function fieldName(instancePath: string, part: FieldError['in']): string {
  if (instancePath === '') return WHOLE[part];
  let name = '';
  for (const segment of instancePath.split('/').slice(1).map(unescape)) {
    if (/^\d+$/.test(segment)) name += `[${segment}]`;
    else name += name === '' ? segment : `.${segment}`;
  }
  return name;
}

/** The subschema a `schemaPath` (`#/properties/org`, or Ajv's `#/properties/org/pattern`) names, if it can be found. */
function subschema(schema: unknown, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = schema;
  let parent: unknown = undefined;
  for (const segment of schemaPath.replace(/^#/, '').split('/').slice(1).map(unescape)) {
    if (typeof node !== 'object' || node === null) return undefined;
    parent = node;
    node = (node as Record<string, unknown>)[segment];
  }
  // Ajv points at the keyword itself; TypeBox at the schema that holds it.
  const found = typeof node === 'object' && node !== null && !Array.isArray(node) ? node : parent;
  return typeof found === 'object' && found !== null ? (found as Record<string, unknown>) : undefined;
}

const ARTICLES: Readonly<Record<string, string>> = {
  boolean: 'a boolean',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function types(value: unknown): string[] {
  const list = Array.isArray(value) ? value : String(value).split(',');
  return list.map((t) => ARTICLES[String(t).trim()] ?? String(t).trim());
}

/** `a, b or c`. */
function either(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

const literal = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const plural = (n: unknown, word: string): string => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

/** What one keyword's failure says about the field, after its name. */
function phrase(issue: SchemaIssue, schema: unknown): string {
  const p = issue.params;
  switch (issue.keyword) {
    case 'type':
      return `must be ${either(types(p.type))}`;
    case 'const':
      return `must be ${literal(p.allowedValue)}`;
    case 'enum':
      return `must be one of ${(Array.isArray(p.allowedValues) ? p.allowedValues : []).map(literal).join(', ')}`;
    case 'pattern':
    case 'format': {
      const annotated = subschema(schema, issue.schemaPath);
      if (typeof annotated?.errorMessage === 'string') return annotated.errorMessage;
      if (typeof annotated?.description === 'string') return `is not valid: ${annotated.description}`;
      if (issue.keyword === 'format') return `must be a valid ${String(p.format)}`;
      return `must match the pattern ${String(p.pattern)}`;
    }
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')} long`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf ?? p.limit)}`;
    case 'minItems':
      return `must have at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item')}`;
    case 'uniqueItems':
      return 'must not hold the same item twice';
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'field')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'field')}`;
    default:
      return issue.message ?? 'is not valid';
  }
}

/** A union's branches that each failed on one keyword at the union's own value: `one of a, b or a string`. */
function unionPhrase(branches: readonly SchemaIssue[]): string | undefined {
  const values: string[] = [];
  const kinds: string[] = [];
  for (const b of branches) {
    if (b.keyword === 'const') values.push(literal(b.params.allowedValue));
    else if (b.keyword === 'enum' && Array.isArray(b.params.allowedValues)) {
      values.push(...b.params.allowedValues.map(literal));
    } else if (b.keyword === 'type') kinds.push(...types(b.params.type));
    else return undefined;
  }
  const unique = [...new Set(values)];
  const alternatives = [...(unique.length > 0 ? [unique.join(', ')] : []), ...new Set(kinds)];
  if (unique.length === 0) return `must be ${either(alternatives)}`;
  return `must be one of ${either(alternatives)}`;
}

/**
 * Turns a validator's errors into one sentence per field that says what is allowed:
 * `role must be one of admin, operator, viewer`, `unknown field "extra"`, `value must be a boolean`,
 * `org must not contain control characters`. A `pattern` or `format` failure uses the schema's
 * `errorMessage` annotation (a phrase after the field's name), else its `description`, and only
 * then the pattern itself. `context` is Fastify's `validationContext`; `schema` the route's
 * schema for that part, where annotations are looked up.
 */
export function describeValidation(
  issues: readonly SchemaIssue[],
  context: string | undefined,
  schema?: unknown,
): FieldError[] {
  const part = PARTS[context ?? 'body'] ?? 'body';
  const out: FieldError[] = [];
  const add = (instancePath: string, detail: string) => {
    const pointer = `#${instancePath}`;
    if (!out.some((e) => e.pointer === pointer && e.detail === detail)) out.push({ in: part, pointer, detail });
  };
  const what = part === 'body' ? 'field' : 'parameter';
  const unknown = (instancePath: string) => `unknown ${what} "${fieldName(instancePath, part)}"`;

  // A union reports each branch's failure, then its own; say once what the union allows.
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const handled = new Set<SchemaIssue>();
  for (const union of unions) {
    // Ajv's schemaPath ends with the keyword; TypeBox's names the schema that holds it.
    const own = `/${union.keyword}`;
    const base = union.schemaPath.endsWith(own) ? union.schemaPath : `${union.schemaPath}${own}`;
    const branches = issues.filter((i) => i !== union && i.schemaPath.startsWith(`${base}/`));
    const flat = branches.every((b) => b.instancePath === union.instancePath);
    const said = flat && branches.length > 0 ? unionPhrase(branches) : undefined;
    if (said === undefined && !flat) continue; // nested failures say more than "matches no form"
    for (const b of branches) handled.add(b);
    handled.add(union);
    add(union.instancePath, `${fieldName(union.instancePath, part)} ${said ?? 'does not match any allowed form'}`);
  }

  for (const issue of issues) {
    if (handled.has(issue)) continue;
    const p = issue.params;
    if (issue.keyword === 'additionalProperties') {
      // TypeBox lists them all (`additionalProperties: [...]`), Ajv one per error (`additionalProperty`).
      const names = Array.isArray(p.additionalProperties) ? p.additionalProperties : [p.additionalProperty];
      for (const name of names) {
        if (typeof name !== 'string') continue;
        const path = `${issue.instancePath}/${escape(name)}`;
        add(path, unknown(path));
      }
    } else if (issue.keyword === 'boolean' && issue.schemaPath.endsWith('/additionalProperties')) {
      add(issue.instancePath, unknown(issue.instancePath)); // TypeBox's "schema is false" for the same field
    } else if (issue.keyword === 'required') {
      const names = Array.isArray(p.requiredProperties) ? p.requiredProperties : [p.missingProperty];
      for (const name of names) {
        if (typeof name !== 'string') continue;
        const path = `${issue.instancePath}/${escape(name)}`;
        add(path, `${fieldName(path, part)} is required`);
      }
    } else if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') {
      continue; // its branches speak for it
    } else {
      add(issue.instancePath, `${fieldName(issue.instancePath, part)} ${phrase(issue, schema)}`);
    }
  }
  return out;
}
