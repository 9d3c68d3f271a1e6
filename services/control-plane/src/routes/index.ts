import type { Writable } from 'node:stream';
import type { ServiceApp } from '@gsp/service-kit';
import type { ControlPlaneConfig } from '../config.js';
import opsRoutes from './ops/index.js';
import sessionRoutes from './session/index.js';
import gameServerRoutes from './gameservers/index.js';
import feedRoutes from './feed/index.js';
import fleetRoutes from './fleets/index.js';
import profileRoutes from './profiles/index.js';
import consoleRoutes from './console/index.js';
import logRoutes from './logs/index.js';
import snapshotRoutes from './snapshots/index.js';
import apiKeyRoutes from './apikeys/index.js';
import panelRoutes from './panel/index.js';

/**
 * Every route plugin, each encapsulated and registered on the root in this order (that of
 * /openapi.json's paths). Every route and its permission are listed in table.ts.
 */
export async function registerRoutes(
  app: ServiceApp,
  config: ControlPlaneConfig,
  auditStream: Writable,
): Promise<void> {
  await app.register(opsRoutes);
  await app.register(sessionRoutes);
  await app.register(gameServerRoutes);
  await app.register(feedRoutes);
  await app.register(fleetRoutes);
  await app.register(profileRoutes);
  await app.register(consoleRoutes);
  await app.register(logRoutes);
  // Retention deletes snapshots with no request behind it; its lines go to the same audit stream.
  const { auditExport } = app;
  await app.register(snapshotRoutes, {
    writeAudit: (line) => {
      auditExport?.spool(line);
      auditStream.write(`${JSON.stringify(line)}\n`);
    },
  });
  await app.register(apiKeyRoutes, {
    keyPrefix: config.apikeyPrefix,
    roles: config.roles,
    maxTtlMs: config.apikeyMaxTtlMs,
  });
  await app.register(panelRoutes, { config });
}
