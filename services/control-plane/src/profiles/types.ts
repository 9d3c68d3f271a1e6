/** A profile: a named template for game servers (README "Profiles"). Validated by schema.ts. */
export interface Profile {
  name: string;
  description?: string;
  image: string;
  ports: ProfilePort[];
  env: Record<string, string>;
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { cpu?: string; memory?: string } };
  /** Agones' `spec.health`. */
  health?: { disabled?: boolean; initialDelaySeconds?: number; periodSeconds?: number; failureThreshold?: number };
  /** A PersistentVolumeClaim per game server, owned by it. */
  storage?: { size: string; storageClassName?: string; mountPath: string };
  /** Agones' player tracking: `spec.players.initialCapacity`. */
  players?: { initialCapacity: number };
  /** argv run in the container by the built-in `restart` action; without it `restart` answers 409. */
  restartCommand?: string[];
  /** Named command actions, run with `POST .../actions/{name}`. */
  actions: Record<string, ProfileAction>;
  /**
   * Snapshots of the storage: argv run in the container before and after one is cut, and how
   * many ready ones to keep per game server (older ones are deleted; without it, all are kept).
   */
  snapshot?: { preCommand?: string[]; postCommand?: string[]; keep?: number };
}

export interface ProfilePort {
  name: string;
  containerPort: number;
  protocol: 'UDP' | 'TCP' | 'TCPUDP';
}

export interface ProfileAction {
  command: string[];
  timeoutSeconds: number;
  description?: string;
}

/** A ConfigMap labelled as a profile whose content does not validate: reported, never served. */
export interface InvalidProfile {
  name: string;
  configMap: string;
  errors: { pointer: string; message: string }[];
}
