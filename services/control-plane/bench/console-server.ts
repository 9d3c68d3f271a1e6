/**
 * The control plane under test for console.bench.ts, alone in its process so that its memory is
 * its own: KUBECONFIG comes from the bench (kube-lite runs there). Answers `memory` with its heap,
 * external memory (buffers) and RSS after a full garbage collection (run with --expose-gc).
 */
import { createWriteStream } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

const app = await buildApp(
  loadConfig({
    KUBECONFIG: process.env.KUBECONFIG,
    POD_NAMESPACE: 'default',
    AUTH_MODE: 'apikey,basic',
    AUTH_BASIC_USER: 'bench',
    AUTH_BASIC_PASSWORD: 'bench-password-123',
    AUTH_BASIC_ROLE: 'admin',
    RATE_LIMIT_MAX: '1000000000',
  }),
  // Audit lines (one per console input line) are written for real, to /dev/null.
  { auditStream: createWriteStream('/dev/null'), logger: false },
);
await app.listen({ port: 0, host: '127.0.0.1' });

const collect = (globalThis as { gc?: () => void }).gc;
process.on('message', (m) => {
  if (m !== 'memory') return;
  for (let i = 0; i < 3; i++) collect?.();
  const { heapUsed, external, rss } = process.memoryUsage();
  process.send?.({ heapUsed, external, rss });
});
process.once('SIGTERM', async () => {
  await app.close();
  process.exit(0);
});
process.send?.({ port: (app.server.address() as AddressInfo).port });
