import fp from 'fastify-plugin';
import { expireLeases } from '@gsp/platform-contract';
import { sweepPeriodically } from '../db/sweep.js';

/** How often lapsed tunnel leases are cleared unless `PRESENCE_SWEEP_INTERVAL` says otherwise. */
export const PRESENCE_SWEEP_INTERVAL_MS = 1000;

export interface PresencePluginOptions {
  /** How often tunnels whose lease ran out are deleted and announced; default `PRESENCE_SWEEP_INTERVAL_MS`. */
  sweepIntervalMs?: number;
}

/**
 * Agent presence: deletes the tunnels whose proxy stopped renewing their lease (it died without a
 * goodbye, or lost the database) and announces each affected cluster once. Every replica sweeps;
 * `expireLeases` makes that safe without an election.
 */
export default fp<PresencePluginOptions>(
  async (app, opts) => {
    const intervalMs = opts.sweepIntervalMs ?? PRESENCE_SWEEP_INTERVAL_MS;
    if (!Number.isInteger(intervalMs) || intervalMs < 10)
      throw new Error(`presence: sweepIntervalMs must be a whole number of milliseconds, at least 10`);
    sweepPeriodically(app, {
      name: 'agent presence sweep',
      intervalMs,
      run: () => expireLeases(app.pg),
      done: (expired) => {
        if (expired > 0) app.log.info({ expired }, 'agent tunnels whose lease ran out were cleared');
      },
    });
  },
  { name: 'presence', dependencies: ['db'] },
);
