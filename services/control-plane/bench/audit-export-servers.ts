/**
 * The servers of audit-export.bench.ts, in their own process: kube-lite and two control planes
 * alike but for the audit export, both authenticating an API key: `off` (standard output only)
 * and `on` (a webhook sink to BENCH_WEBHOOK_URL, spooled under BENCH_SPOOL_DIR).
 */
import { createWriteStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startKubeLite } from '@gsp/kube-lite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

const spoolDir = process.env.BENCH_SPOOL_DIR ?? '';
const kube = await startKubeLite({ port: 0 });
const common = {
  KUBECONFIG: kube.kubeconfigPath,
  POD_NAMESPACE: 'default',
  RATE_LIMIT_MAX: '1000000000',
  LOG_LEVEL: 'warn',
  REPLICA_ID: 'bench',
};
// Audit lines are written for real, to /dev/null, so their cost is part of the figures.
const auditStream = createWriteStream('/dev/null');
// Not listening: its anonymous admin only creates the key the two others learn from their watch.
const admin = await buildApp(loadConfig({ ...common, AUTH_MODE: 'none' }), { auditStream, logger: false });
const off = await buildApp(loadConfig({ ...common, AUTH_MODE: 'apikey' }), { auditStream, logger: false });
const on = await buildApp(
  loadConfig({
    ...common,
    AUTH_MODE: 'apikey',
    AUDIT_WEBHOOK_URL: process.env.BENCH_WEBHOOK_URL,
    AUDIT_WEBHOOK_SECRET: process.env.BENCH_WEBHOOK_SECRET,
    AUDIT_SPOOL_DIR: spoolDir,
    // While the receiver is down the retries stay close together, so the drain starts soon after it is up.
    AUDIT_EXPORT_BACKOFF_BASE: '50ms',
    AUDIT_EXPORT_BACKOFF_MAX: '200ms',
  }),
  { auditStream, logger: false },
);
await off.listen({ port: 0, host: '127.0.0.1' });
await on.listen({ port: 0, host: '127.0.0.1' });

const created = await admin.inject({
  method: 'POST',
  url: '/api/v1/apikeys',
  payload: { name: 'bench', role: 'viewer' },
});
if (created.statusCode !== 201) throw new Error(`creating the bench key: ${created.statusCode} ${created.body}`);
const apiKey = (created.json() as { key: string }).key;
for (const app of [off, on]) {
  for (
    let i = 0;
    (await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': apiKey } })).statusCode !== 200;
    i++
  ) {
    if (i > 500) throw new Error('the bench key did not reach a control plane');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Bytes of the spool's segment files now. */
async function spoolBytes(): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(spoolDir))
    if (name.endsWith('.seg')) bytes += (await stat(join(spoolDir, name))).size;
  return bytes;
}

process.once('SIGTERM', async () => {
  await on.close();
  await off.close();
  await admin.close();
  await kube.close();
  process.exit(0);
});
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
  if (m === 'spool') void spoolBytes().then((bytes) => process.send?.({ spool: bytes }));
});
process.send?.({
  off: (off.server.address() as AddressInfo).port,
  on: (on.server.address() as AddressInfo).port,
  apiKey,
});
