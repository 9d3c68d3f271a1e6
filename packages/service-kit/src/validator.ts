import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { hasLoneSurrogate, WELL_FORMED_RULE } from './text.js';

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The JSON Pointer (`/reason`, `/labels/0`) of the first string in `value`, or object key, that
 * holds half a character (`hasLoneSurrogate`); undefined when there is none.
 */
export function loneSurrogatePath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogatePath(value[i], `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}/${escape(key)}`;
    if (hasLoneSurrogate(key)) return at;
    const found = loneSurrogatePath(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `compiler` followed, for bodies, by the rule every stored string follows: well-formed Unicode
 * (`WELL_FORMED_RULE` of ./text.ts), so no route can hand the database or Kubernetes half a
 * character (PostgreSQL's jsonb refused `"\udc00"` with a 500; a Kubernetes object would hold
 * U+FFFD instead). Only a JSON body can carry one, as an escape: a URL's percent-encoding is UTF-8,
 * which has none (Fastify refuses `%ED%A0%80` in a path as malformed and leaves it undecoded in a
 * query), and header values are bytes. A refusal is a schema failure like any other: 400, naming
 * the field's pointer.
 */
export function withWellFormedText(compiler: FastifySchemaCompiler<TSchema>): FastifySchemaCompiler<TSchema> {
  return (route) => {
    const validate = compiler(route);
    if (route.httpPart !== 'body' || typeof validate !== 'function') return validate;
    return (data) => {
      const result = validate(data);
      // A refusal of the schema's own, or an asynchronous answer (none of ours), is left as it is.
      if (result === false || typeof result !== 'object' || result === null || 'then' in result) return result;
      if (result.error !== undefined) return result;
      const instancePath = loneSurrogatePath('value' in result ? result.value : data);
      if (instancePath === undefined) return result;
      const issue: FastifySchemaValidationError = {
        keyword: 'wellFormed',
        instancePath,
        schemaPath: '#',
        params: {},
        message: WELL_FORMED_RULE,
      };
      return { error: [issue] };
    };
  };
}

/** Every service's validator: TypeBox's, with the well-formed rule for bodies (`withWellFormedText`). */
export const serviceValidatorCompiler = withWellFormedText(TypeBoxValidatorCompiler);
