import type { AuditDetails } from '../audit-target.js';
import { Conflict } from '../errors.js';
import { isHeld } from '../gameservers/locks.js';
import type { ActionLocks } from '../gameservers/locks.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import { planAction } from './plan.js';
import { nameOf } from './request.js';
import type { ActionCaller, ActionContext, ActionResult } from './request.js';

/**
 * How much longer than its own bound an action's lock lives: it outlives the action, and expires if this replica
 * dies.
 */
const LOCK_MARGIN_MS = 10_000;

/** Runs the actions of the API: planned, then run under the game server's lock, one at a time per server. */
export class ActionRunner {
  constructor(
    private readonly ctx: ActionContext,
    private readonly locks: ActionLocks,
  ) {}

  /**
   * Plans `action` on `gs` (400, 404, 409 before anything changes) and runs it while holding the
   * server's action lock (409 when another action holds it, on any replica). `audit` hears how it
   * ended: its outcome, `refused: busy`, `timeout` or `failed`.
   */
  async run(
    gs: AgonesGameServer,
    action: string,
    args: readonly string[],
    caller: ActionCaller,
    audit: (details: AuditDetails) => void,
  ): Promise<ActionResult> {
    const planned = planAction(this.ctx, gs, action, args, caller);
    const id = nameOf(gs);
    const lock = await this.locks.acquire(id, planned.name, planned.timeoutMs + LOCK_MARGIN_MS);
    if (!isHeld(lock)) {
      audit({ outcome: 'refused: busy' });
      const since = lock.startedAt ? ` (since ${lock.startedAt})` : '';
      throw new Conflict(`action ${lock.action} is already running on game server ${id}${since}; one action at a time`);
    }
    try {
      const result = await planned.run();
      audit({ outcome: planned.outcome(result) });
      return result;
    } catch (err) {
      audit({ outcome: (err as { statusCode?: number }).statusCode === 504 ? 'timeout' : 'failed' });
      throw err;
    } finally {
      await lock.release();
    }
  }
}
