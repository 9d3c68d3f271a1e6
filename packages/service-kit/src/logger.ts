/**
 * What a component logs through: pino's (and so Fastify's `app.log`) object-first signature,
 * narrowed to the two levels libraries use. A process hands its own logger down; a component
 * that wants only one level takes `Pick<Logger, 'warn'>`.
 */
export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Logs nothing: the default of a component given no logger. */
export const silentLogger: Logger = { info() {}, warn() {} };

/** With `error` too, for what needs an operator's action (the tunnel agent's rejected token). */
export interface ErrorLogger extends Logger {
  error(obj: object, msg: string): void;
}
