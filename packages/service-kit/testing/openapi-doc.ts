/** The parts of a served `/openapi.json` that the services' document tests check. */

export interface DocumentedResponse {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

export interface DocumentedParameter {
  name: string;
  in: string;
  required?: boolean;
}

/** One operation; `P` is the service's `x-permission` (a name, or resource and verb). */
export interface DocumentedOperation<P = unknown> {
  security?: Array<Record<string, string[]>>;
  parameters?: DocumentedParameter[];
  requestBody?: unknown;
  responses?: Record<string, DocumentedResponse>;
  'x-permission'?: P;
  'x-minimum-role'?: string;
}

export interface ServedDocument<P = unknown> {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, DocumentedOperation<P>>>;
  components: { schemas?: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Every operation of the document, named `METHOD /path` as the services' tables name them. */
export function documentedOperations<P>(
  doc: ServedDocument<P>,
): { name: string; method: string; path: string; op: DocumentedOperation<P> }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })),
  );
}
