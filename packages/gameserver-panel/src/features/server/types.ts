/** The control plane's answers this page reads (services/control-plane: gameservers, snapshots, profiles). */

export interface ServerPort {
  name: string;
  port: number;
  protocol: string;
}

/** GameServerSchema (services/control-plane/src/gameservers/model.ts). */
export interface GameServerView {
  namespace: string;
  name: string;
  profile: string | null;
  state: string;
  address: string | null;
  ports: ServerPort[];
  labels: Record<string, string>;
  players: { count: number; capacity: number } | null;
  createdAt: string;
}

/** What `POST .../actions/{action}` answers: the new state, or what the command did. */
export type ActionAnswer =
  | { action: string; gameServer: GameServerView }
  | {
      action: string;
      exitCode: number;
      stdout: string;
      stderr: string;
      truncated: boolean;
      durationMs: number;
    };

/** A profile's command action (only what the page shows). */
export interface ProfileAction {
  command: string[];
  timeoutSeconds: number;
  description?: string;
}

/** GET /api/v1/profiles/{name}, the parts this page reads. */
export interface ProfileSummary {
  name: string;
  actions: Record<string, ProfileAction>;
  restartCommand?: string[];
  storage?: { size: string; mountPath: string };
  /** Argv run in the container around a snapshot, which therefore needs it running. */
  snapshot?: { preCommand?: string[]; postCommand?: string[] };
}

/** SnapshotSchema (services/control-plane/src/snapshots/model.ts). */
export interface SnapshotView {
  namespace: string;
  name: string;
  gameServer: string;
  profile: string | null;
  readyToUse: boolean;
  restoreSize: string | null;
  createdAt: string;
  error: string | null;
}

export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  error: string | null;
}

/** What `POST .../snapshots` answers: the snapshot as asked for and its hooks' runs. */
export interface SnapshotTaken extends SnapshotView {
  hooks: { preCommand: HookRun | null; postCommand: HookRun | null };
}

/** The console's WebSocket messages from the server (services/control-plane/src/console/protocol.ts). */
export type ConsoleMessage =
  { type: 'output'; data: string } | { type: 'state'; state: string } | { type: 'closed'; reason: string };
