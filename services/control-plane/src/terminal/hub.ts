import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { ApiKeyStore } from '../apikeys/store.js';
import { isRunning } from '../contract.js';
import type { Principal } from '../auth/principal.js';
import type { CommandRunner } from '../kube/exec.js';
import type { ChangeType, Informer } from '../kube/informer.js';
import { containerOf, stateOf } from '../gameservers/model.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { CloseCode, TerminalSession } from './session.js';
import type { SessionAudit } from './session.js';
import type { TerminalLimits } from './protocol.js';
import type { TerminalTarget } from './tickets.js';
import { addTo, removeFrom } from '../multimap.js';

const SHUT_DOWN = 'game server shut down';
const REVOKED = 'credential revoked';

export interface HubOptions {
  gameServers: Informer<AgonesGameServer>;
  apikeys: ApiKeyStore;
  exec: CommandRunner;
  limits: TerminalLimits;
  log: FastifyBaseLogger;
  /**
   * Subscribes to the ends of panel sessions (signed out on any replica, expired, key revoked): their consoles
   * close.
   */
  onSessionEnded?: (listener: (sessionHash: string, reason: string) => void) => () => void;
}

export interface OpenRequest {
  target: TerminalTarget;
  principal: Principal;
  audit: SessionAudit;
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * The open consoles of this replica, and what ends them from outside: the game server's state
 * (told to its consoles; Shutdown or deletion closes them), the revocation of the API key a
 * console was opened with (on any replica: each learns it from its own watch), the end of the
 * panel session it was opened from, and its expiry.
 */
export class TerminalHub {
  private readonly byServer = new Map<string, Set<TerminalSession>>();
  private readonly byKey = new Map<string, Set<TerminalSession>>();
  private readonly bySession = new Map<string, Set<TerminalSession>>();
  private readonly stops: (() => void)[];

  constructor(private readonly options: HubOptions) {
    this.stops = [
      options.gameServers.onChange((type, gs) => this.changed(type, gs)),
      options.apikeys.onRevoked((key) => {
        for (const session of [...(this.byKey.get(key.sha256) ?? [])]) session.close(REVOKED, CloseCode.policy);
      }),
    ];
    if (options.onSessionEnded !== undefined)
      this.stops.push(
        options.onSessionEnded((hash, reason) => {
          for (const session of [...(this.bySession.get(hash) ?? [])]) session.close(reason, CloseCode.policy);
        }),
      );
  }

  /** Serves a console on `socket`, upgraded for `request`; everything after is the session's. */
  open(socket: WebSocket, request: OpenRequest): void {
    const { namespace, name } = request.target;
    const gs = this.options.gameServers.get(namespace, name);
    const state = gs === undefined ? 'Shutdown' : stateOf(gs);
    const serverKey = keyOf(namespace, name);
    const apiKey = request.principal.apiKey?.sha256;
    const panelSession = request.principal.sessionHash;
    const session = new TerminalSession({
      socket,
      limits: this.options.limits,
      audit: request.audit,
      state,
      ended: (ended) => {
        removeFrom(this.byServer, serverKey, ended);
        if (apiKey !== undefined) removeFrom(this.byKey, apiKey, ended);
        if (panelSession !== undefined) removeFrom(this.bySession, panelSession, ended);
      },
    });
    addTo(this.byServer, serverKey, session);
    if (apiKey !== undefined) addTo(this.byKey, apiKey, session);
    if (panelSession !== undefined) addTo(this.bySession, panelSession, session);

    // Checked again now that the session listens: a change just before it is not missed.
    if (gs === undefined || state === 'Shutdown') return session.close(SHUT_DOWN, CloseCode.normal);
    if (!isRunning(state)) return session.close(`the game server is not running (state ${state})`, CloseCode.normal);
    if (apiKey !== undefined) {
      const record = this.options.apikeys.byHash(apiKey);
      if (record === undefined) return session.close(REVOKED, CloseCode.policy);
      if (record.expiresAt !== undefined) session.expireAt(Date.parse(record.expiresAt));
    }
    // A bearer token's right ends at its exp: the console with it.
    if (request.principal.expiresAt !== undefined) session.expireAt(request.principal.expiresAt);

    const target = { namespace, pod: name, container: containerOf(gs) };
    this.options.exec
      .attach(target, {
        output: (text) => session.output(text),
        end: (why) => {
          const current = this.options.gameServers.get(namespace, name);
          if (current === undefined || stateOf(current) === 'Shutdown')
            return session.close(SHUT_DOWN, CloseCode.normal);
          if (why === 'exited') return session.close("the game server's console ended", CloseCode.normal);
          session.close('the connection to the game server was lost', CloseCode.internal);
        },
      })
      .then(
        (stream) => session.attached(stream),
        (err: unknown) => {
          this.options.log.warn(
            { err: { message: (err as Error).message }, gameServer: serverKey },
            'could not attach a console to the game server',
          );
          session.close(`could not attach to the game server: ${(err as Error).message}`, CloseCode.internal);
        },
      );
  }

  /** Closes every console (the control plane is stopping) and stops listening. */
  stop(): void {
    for (const stop of this.stops) stop();
    for (const sessions of [...this.byServer.values()]) {
      for (const session of [...sessions]) session.close('the control plane is shutting down', CloseCode.goingAway);
    }
  }

  private changed(type: ChangeType, gs: AgonesGameServer): void {
    const sessions = this.byServer.get(keyOf(gs.metadata?.namespace ?? '', gs.metadata?.name ?? ''));
    if (sessions === undefined) return;
    const state = stateOf(gs);
    for (const session of [...sessions]) {
      if (type !== 'delete') session.stateChanged(state);
      if (type === 'delete' || state === 'Shutdown') session.close(SHUT_DOWN, CloseCode.normal);
    }
  }
}
