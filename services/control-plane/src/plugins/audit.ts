import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Writable } from 'node:stream';
import { MIN_SECRET_LENGTH, redactSecrets, requestCredentials } from '@gsp/service-kit';
import type { Secret, SecretPattern } from '@gsp/service-kit';
import { CHECKSUM_LENGTH, hashKey, RANDOM_LENGTH } from '../apikeys/keys.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Audits a request Fastify answers before any hook runs (a URL it cannot decode), so that
     * one, too, has its line; every other request is audited by this plugin's onRequest hook.
     */
    auditRequest(request: FastifyRequest, reply: FastifyReply): void;
    /**
     * Audits a request Node refused (not HTTP, headers too large, too slow) from what was seen of
     * it, unless Fastify already has the request on that connection (a body that came too slowly):
     * that one's own line records it.
     */
    auditUnparsed(seen: UnparsedRequest, socket: object): void;
    /**
     * Writes the line of a request upgraded to a WebSocket now, with status 101: its response
     * never finishes, and the connection closes only when the socket does.
     */
    auditUpgraded(request: FastifyRequest): void;
    /**
     * One more line about what happened within a request that goes on (a console's input, its
     * close), with the request's user, role, path, target and request id.
     */
    auditEvent(request: FastifyRequest, event: AuditEvent): void;
  }
  interface FastifyRequest {
    /** What the request acted on when its path does not say it all (a create names its object in the body). */
    auditTarget: string | undefined;
    /** How an action ended (`exit 0`, `timeout`, `allocated`...), for its audit line; set by the handler. */
    auditOutcome: string | undefined;
  }
}

/** What is known of a request Node refused before Fastify saw it. */
export interface UnparsedRequest {
  method: string;
  path: string;
  clientIP: string;
  userAgent: string;
  status: number;
  requestId: string;
}

export interface AuditPluginOptions {
  /** Where audit lines go: standard output in production, a capture in tests. */
  stream: Writable;
  /**
   * Where each record is also kept for export (the audit spool), before its request is answered:
   * a request's record when its response starts (its status then, its time to the first byte),
   * the response held until `written` runs; one that ends unanswered (499), upgraded (101), an
   * event or a refused request, when written. Unset: standard output only.
   */
  spool?: ((line: AuditLine, written?: () => void) => void) | undefined;
  /** APIKEY_PREFIX: a ticket's or a session's API key is recognised in a record by its shape and hash. */
  apikeyPrefix?: string | undefined;
  /** AUTH_BASIC_PASSWORD, when set in plain: redacted from the records of a Basic user's tickets and sessions. */
  basicPassword?: string | undefined;
}

/** Credentials of the deployment that a request authenticated by a ticket or a session stands for. */
type KnownCredentials = Pick<AuditPluginOptions, 'apikeyPrefix' | 'basicPassword'>;

/**
 * The control plane's audit record: one JSON line per request (or per event within a request
 * that goes on), who did what to which target with what result. Its field names are a contract
 * with whoever reads standard output.
 */
export interface AuditLine {
  timestamp: string;
  level: 'audit';
  user: string;
  role: string;
  method: string;
  path: string;
  clientIP: string;
  userAgent: string;
  result: 'success' | 'failure';
  status: number;
  requestId: string;
  authMethod: string;
  durationMs: number;
  /**
   * True when the panel's session cookie authenticated the request (`authMethod` says how the session was signed
   * in).
   */
  session?: boolean;
  /**
   * What the request acted on, from its path: `namespace/name` of a game server or fleet, a profile's or key's
   * name.
   */
  target?: string;
  /** The action run, on `.../actions/{action}`. */
  action?: string;
  outcome?: string;
  /** A console's input line, cut at 256 characters (`console.input`). */
  command?: string;
  /** Bytes of console data received from and sent to the client (`console.close`). */
  bytesIn?: number;
  bytesOut?: number;
  /** Why a console closed (`console.close`). */
  reason?: string;
}

/** A line about a request that goes on: `action` names what happened (`console.input`, `console.close`). */
export interface AuditEvent {
  action: string;
  result?: 'success' | 'failure';
  durationMs?: number;
  command?: string;
  bytesIn?: number;
  bytesOut?: number;
  reason?: string;
}

const MAX_TARGET = 300;

/** The target and action named by a request's path parameters (values are validated later, so capped here). */
function targetOf(params: unknown): { target?: string; action?: string } {
  if (params === null || typeof params !== 'object') return {};
  const { namespace, name, action } = params as Record<string, unknown>;
  const parts = [namespace, name].filter((p): p is string => typeof p === 'string' && p !== '');
  return {
    ...(parts.length > 0 ? { target: parts.join('/').slice(0, MAX_TARGET) } : {}),
    ...(typeof action === 'string' ? { action: action.slice(0, MAX_TARGET) } : {}),
  };
}

/**
 * The credentials of `request` no record may hold, wherever the caller put them (a path, the user
 * agent, a console line) and however they encoded them (`redactSecrets` reads percent-encodings):
 * those it carries (service-kit's `requestCredentials`: its API key, Authorization, Basic password,
 * credential query values such as the console's ticket, subprotocols, cookies); and those of the
 * principal a ticket or a session stands for, which the request does not carry: its API key,
 * recognised by shape and hash, and the configured Basic password.
 */
function credentialsOf(request: FastifyRequest, known: KnownCredentials): Secret[] {
  const secrets: Secret[] = requestCredentials(request.headers, request.url);
  // Undefined, not null, on a request answered before the lifecycle (no decorators there).
  const principal = request.principal ?? null;
  const keyHash = principal?.apiKey?.sha256;
  // A key the request carries is among its credentials already: searched for as it is, which is cheaper.
  if (keyHash !== undefined && known.apikeyPrefix !== undefined && request.headers['x-api-key'] === undefined)
    secrets.push(keyOf(known.apikeyPrefix, keyHash));
  const password = known.basicPassword;
  if (principal?.method === 'basic' && password !== undefined && password.length >= MIN_SECRET_LENGTH)
    secrets.push(password);
  return secrets;
}

/** An API key of `prefix`'s shape (generateKey: the prefix, `_`, 38 base62 characters) whose hash is `sha256`. */
function keyOf(prefix: string, sha256: string): SecretPattern {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    pattern: new RegExp(`${escaped}_[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`, 'g'),
    matches: (candidate) => hashKey(candidate) === sha256,
  };
}

/** What a request's lines share: who made it, what it named, scrubbed of its credentials. */
interface Who extends Pick<
  AuditLine,
  'user' | 'role' | 'method' | 'path' | 'clientIP' | 'userAgent' | 'requestId' | 'authMethod'
> {
  target: string | undefined;
  action: string | undefined;
  session: boolean;
  /** `request.auditTarget` when this was made, unscrubbed (to see that it changed). */
  auditTarget: string | undefined;
}

/** `line` with every occurrence of `secrets` in its text fields replaced, however it was encoded. */
function scrub<L extends object>(line: L, secrets: readonly Secret[]): L {
  if (secrets.length === 0) return line;
  const fields = line as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value !== 'string') continue;
    const clean = redactSecrets(value, secrets);
    if (clean !== value) fields[key] = clean;
  }
  return line;
}

let isoMs = -1;
let iso = '';
/** The time now in RFC 3339, made once per millisecond however many lines share it. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}

/** Status recorded for a request whose client went away before the response was complete. */
const CLIENT_CLOSED = 499;

/**
 * The lines of requests: each request's credentials looked for once, and the fields its lines
 * share scrubbed once (again if its target is set later), however many lines it has (spooled,
 * stdout, events).
 */
class RequestLines {
  private readonly secrets = new WeakMap<FastifyRequest, Secret[]>();
  private readonly whos = new WeakMap<FastifyRequest, Who>();

  constructor(private readonly known: KnownCredentials) {}

  secretsOf(request: FastifyRequest): Secret[] {
    let found = this.secrets.get(request);
    if (found === undefined) this.secrets.set(request, (found = credentialsOf(request, this.known)));
    return found;
  }

  /** The line about `request`, its fields in their usual order, with none of its credentials; callers add the rest. */
  lineOf(request: FastifyRequest, result: AuditLine['result'], status: number, durationMs: number): AuditLine {
    const who = this.whoOf(request);
    const line: AuditLine = {
      timestamp: isoNow(),
      level: 'audit',
      user: who.user,
      role: who.role,
      method: who.method,
      path: who.path,
      clientIP: who.clientIP,
      userAgent: who.userAgent,
      result,
      status,
      requestId: who.requestId,
      authMethod: who.authMethod,
      durationMs,
    };
    if (who.session) line.session = true;
    if (who.target !== undefined) line.target = who.target;
    if (who.action !== undefined) line.action = who.action;
    return line;
  }

  /** A request's line with its outcome, if its handler set one. */
  requestLine(request: FastifyRequest, status: number, durationMs: number): AuditLine {
    const line = this.lineOf(request, status < 400 ? 'success' : 'failure', status, durationMs);
    return request.auditOutcome === undefined
      ? line
      : scrub({ ...line, outcome: request.auditOutcome }, this.secretsOf(request));
  }

  /**
   * A line about what happened within `request`; its status that of the request, which for an upgraded console is
   * 101.
   */
  eventLine(request: FastifyRequest, event: AuditEvent): AuditLine {
    const { action, result = 'success', durationMs = 0, ...details } = event;
    return scrub({ ...this.lineOf(request, result, 101, durationMs), action, ...details }, this.secretsOf(request));
  }

  private whoOf(request: FastifyRequest): Who {
    let who = this.whos.get(request);
    if (who !== undefined && who.auditTarget === request.auditTarget) return who;
    // Undefined, not null, on a request answered before the lifecycle (no decorators there).
    const principal = request.principal ?? null;
    const { target, action } = targetOf(request.params);
    who = scrub(
      {
        user: principal?.username ?? '',
        role: principal?.role ?? '',
        method: request.method,
        path: request.url.split('?')[0] ?? '',
        clientIP: request.ip,
        userAgent: (request.headers['user-agent'] ?? '').slice(0, 256),
        requestId: request.id,
        authMethod: principal?.method ?? '',
        target: request.auditTarget ?? target,
        action,
        session: principal?.sessionHash !== undefined,
        auditTarget: request.auditTarget,
      },
      this.secretsOf(request),
    );
    who.auditTarget = request.auditTarget;
    this.whos.set(request, who);
    return who;
  }
}

/** The line of a request Node refused before Fastify saw it. */
function unparsedLine(seen: UnparsedRequest): AuditLine {
  return {
    timestamp: isoNow(),
    level: 'audit',
    user: '',
    role: '',
    method: seen.method,
    path: seen.path.split('?')[0] ?? '',
    clientIP: seen.clientIP,
    userAgent: seen.userAgent.slice(0, 256),
    result: 'failure',
    status: seen.status,
    requestId: seen.requestId,
    authMethod: '',
    durationMs: 0,
  };
}

/**
 * One JSON line per request (health probes excepted), written when the response is finished
 * or the connection closed early, so 401s, 429s and aborted requests are audited too. Only the
 * path is kept (a query string may carry anything), and no header but the user agent.
 */
export default fp<AuditPluginOptions>(
  async (app, opts) => {
    const spool = opts.spool;
    const lines = new RequestLines({ apikeyPrefix: opts.apikeyPrefix, basicPassword: opts.basicPassword });
    const write = (line: AuditLine, spooled = false): void => {
      if (spool && !spooled) spool(line);
      opts.stream.write(`${JSON.stringify(line)}\n`);
    };
    /** Requests whose record has not been spooled yet, and the function that spools it (once). */
    const unspooled = new WeakMap<FastifyRequest, (status: number, written: () => void) => void>();
    /** Connections with a request whose line is still to be written. */
    const inFlight = new WeakSet<object>();
    /** Requests whose line is still to be written, and the function that writes it (once). */
    const pending = new WeakMap<FastifyRequest, (status: number) => void>();

    function auditRequest(request: FastifyRequest, reply: FastifyReply): void {
      const started = performance.now();
      // A flag rather than writableFinished, which light-my-request (app.inject) never sets.
      let finished = false;
      reply.raw.once('finish', () => (finished = true));
      const socket: object | null = request.raw.socket;
      if (socket) inFlight.add(socket);
      const line = (status: number): AuditLine =>
        lines.requestLine(request, status, Math.round((performance.now() - started) * 100) / 100);
      const writeOnce = (status: number): void => {
        if (!pending.delete(request)) return;
        if (socket) inFlight.delete(socket);
        write(line(status), !unspooled.delete(request));
      };
      pending.set(request, writeOnce);
      if (spool)
        unspooled.set(request, (status, written) => {
          if (unspooled.delete(request)) spool(line(status), written);
        });
      reply.raw.once('close', () => writeOnce(finished ? reply.raw.statusCode : CLIENT_CLOSED));
    }
    app.decorate('auditUpgraded', (request: FastifyRequest) => pending.get(request)?.(101));
    app.decorate('auditEvent', (request: FastifyRequest, event: AuditEvent) => write(lines.eventLine(request, event)));
    app.decorateRequest('auditOutcome', undefined);
    app.decorateRequest('auditTarget', undefined);
    app.decorate('auditRequest', auditRequest);
    app.decorate('auditUnparsed', (seen: UnparsedRequest, socket: object) => {
      if (!inFlight.has(socket)) write(unparsedLine(seen));
    });
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.audit !== false) auditRequest(request, reply);
    });
    // The record is in the OS before the response goes (written with the others of the same turn):
    // a crash after the client has its answer loses nothing.
    if (spool)
      app.addHook('onSend', (request, reply, payload, done) => {
        const keep = unspooled.get(request);
        if (keep) keep(reply.statusCode, () => done(null, payload));
        else done(null, payload);
      });
  },
  { name: 'audit' },
);
