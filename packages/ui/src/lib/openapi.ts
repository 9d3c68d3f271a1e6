/**
 * Reading an app's generated wire types (openapi-typescript's `paths`, under each app's `src/gen/`)
 * by operation, for answers the service does not name in `components.schemas`. Types only.
 */

type SuccessOf<Responses> = Responses extends { 200: infer Success }
  ? Success
  : Responses extends { 201: infer Success }
    ? Success
    : Responses extends { 202: infer Success }
      ? Success
      : never;
type JsonOf<Message> = Message extends { content: { 'application/json': infer Json } } ? Json : never;

/**
 * The JSON an operation answers with when it succeeds (200, else 201, else 202):
 * `JsonAnswer<paths['/api/v1/me']['get']>`.
 */
export type JsonAnswer<Operation> = Operation extends { responses: infer Responses }
  ? JsonOf<SuccessOf<Responses>>
  : never;

/** The JSON body an operation takes: `JsonBody<paths['/api/v1/apikeys']['post']>`. */
export type JsonBody<Operation> = Operation extends { requestBody?: infer Body } ? JsonOf<NonNullable<Body>> : never;
