import { Type } from 'typebox';
import { BadRequest } from '../errors.js';
import { GameServerSchema } from '../gameservers/model.js';
import { Name, Namespace } from '../http/params.js';

/** The action route's schema and the limits of its args: it validates, types the handler and documents the route. */
export const ActionName = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z][a-z0-9-]*$',
  errorMessage: 'must be lower-case letters, digits and "-", starting with a letter, at most 63 characters',
  description: 'allocate, reserve, restart, shutdown, or an action of the profile.',
});
export const MAX_ARGS = 64;
export const MAX_ARG_LENGTH = 4096;
/** argv elements: any text but NUL, which no process can receive. */
export const Argv = Type.Array(
  Type.String({
    maxLength: MAX_ARG_LENGTH,
    pattern: '^[^\\u0000]*$',
    errorMessage: `must not contain NUL characters, at most ${MAX_ARG_LENGTH} characters`,
  }),
  { maxItems: MAX_ARGS },
);
/**
 * All args together, in UTF-8: they travel percent-encoded in the exec request's URL, which the
 * API server reads up to 1 MiB, so at most three times this. 64 args of 4096 ASCII characters fit.
 */
export const MAX_ARGS_BYTES = MAX_ARGS * MAX_ARG_LENGTH;
/**
 * The body limit of a route taking `{args}`: the largest body those rules allow, as JSON.stringify
 * writes it (a UTF-8 byte takes at most 6, `\u001f`; an arg 3 more, its quotes and comma), so
 * every valid request fits and a body breaking a rule is told which rule rather than 413.
 */
export const ARGS_BODY_LIMIT = MAX_ARGS_BYTES * 6 + MAX_ARGS * 3 + 64;

/** What the schema cannot say of args: their total size (MAX_ARGS_BYTES). */
export function checkArgsSize(args: readonly string[]): void {
  const bytes = args.reduce((sum, arg) => sum + Buffer.byteLength(arg), 0);
  if (bytes > MAX_ARGS_BYTES)
    throw new BadRequest(`args must total at most ${MAX_ARGS_BYTES} bytes (UTF-8) together; these are ${bytes}`);
}

const ActionBody = Type.Object(
  { args: Type.Optional(Argv) },
  {
    additionalProperties: false,
    description: 'args are appended to the command as separate argv elements, never through a shell.',
  },
);

const ActionAnswer = Type.Union([
  Type.Object(
    { action: Type.String(), gameServer: GameServerSchema },
    { description: 'allocate, reserve, shutdown: the state it is now in.' },
  ),
  Type.Object(
    {
      action: Type.String(),
      exitCode: Type.Integer(),
      stdout: Type.String(),
      stderr: Type.String(),
      truncated: Type.Boolean({ description: 'stdout or stderr was cut at 64 KiB.' }),
      durationMs: Type.Integer(),
    },
    {
      description:
        'restart and profile actions: what the command did. A non-zero exit code is still a 200: the command ran.',
    },
  ),
]);

export const ActionSchema = {
  tags: ['gameservers'],
  params: Type.Object({ namespace: Namespace, name: Name, action: ActionName }),
  body: ActionBody,
  response: { 200: ActionAnswer },
};
