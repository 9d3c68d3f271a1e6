import type { Writable } from 'node:stream';
import type { ServiceApp } from '@gsp/service-kit';
import type { ControlPlaneConfig } from './config/index.js';
import opsRoutes from './ops/routes.js';
import sessionRoutes from './session/routes.js';
import gameServerRoutes from './gameservers/routes.js';
import actionRoutes from './actions/routes.js';
import feedRoutes from './feed/routes.js';
import fleetRoutes from './fleets/routes.js';
import profileRoutes from './profiles/routes.js';
import terminalRoutes from './terminal/routes.js';
import logRoutes from './logs/routes.js';
import snapshotRoutes from './snapshots/routes.js';
import apiKeyRoutes from './apikeys/routes.js';
import panelRoutes from './panel/routes.js';

/**
 * Every route plugin, each encapsulated and registered on the root in this order (that of
 * /openapi.json's paths). A URL's routes are in the folder of its feature (`<feature>/routes.ts`);
 * every route and its permission are listed in rbac/table.ts.
 */
export async function registerRoutes(
  app: ServiceApp,
  config: ControlPlaneConfig,
  auditStream: Writable,
): Promise<void> {
  await app.register(opsRoutes);
  await app.register(sessionRoutes);
  await app.register(gameServerRoutes);
  await app.register(actionRoutes);
  await app.register(feedRoutes);
  await app.register(fleetRoutes);
  await app.register(profileRoutes);
  await app.register(terminalRoutes);
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
