/**
 * oidc-provider's storage for the development issuer: in this process's memory, so a restart of
 * `npm start` signs everyone out of the issuer (not of the console, whose sessions are the API
 * server's). oidc-provider has one of its own, but warns at start that it MUST be changed: that
 * advice is for production and would only alarm a developer reading npm start's output.
 */

export type Payload = Record<string, unknown> & { uid?: string; grantId?: string; userCode?: string };

interface Entry {
  payload: Payload;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Every model's entries (`<model>:<id>`), and the indexes the provider looks up by. */
const entries = new Map<string, Entry>();
const sessionIdByUid = new Map<string, string>();
const keysByGrant = new Map<string, Set<string>>();
/** Past this many entries, an upsert first drops the expired ones (each sign-in leaves a handful). */
const SWEEP_ABOVE = 1000;

function sweep(): void {
  const now = Date.now();
  for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
}

export class MemoryAdapter {
  constructor(private readonly model: string) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: Payload, expiresIn: number): Promise<void> {
    if (entries.size > SWEEP_ABOVE) sweep();
    const key = this.key(id);
    entries.set(key, { payload, expiresAt: Date.now() + expiresIn * 1000 });
    if (this.model === 'Session' && payload.uid !== undefined) sessionIdByUid.set(payload.uid, id);
    if (payload.grantId !== undefined) {
      const keys = keysByGrant.get(payload.grantId) ?? new Set<string>();
      keys.add(key);
      keysByGrant.set(payload.grantId, keys);
    }
  }

  async find(id: string): Promise<Payload | undefined> {
    const key = this.key(id);
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const id = sessionIdByUid.get(uid);
    return id === undefined ? undefined : this.find(id);
  }

  /** The device flow is off: no user codes. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = entries.get(this.key(id));
    if (entry !== undefined) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    const key = this.key(id);
    const uid = entries.get(key)?.payload.uid;
    if (this.model === 'Session' && uid !== undefined) sessionIdByUid.delete(uid);
    entries.delete(key);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of keysByGrant.get(grantId) ?? []) entries.delete(key);
    keysByGrant.delete(grantId);
  }
}
