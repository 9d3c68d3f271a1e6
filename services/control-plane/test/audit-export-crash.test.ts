// Issue 25, acceptance 2: the control plane SIGKILLed mid-export and restarted on the same spool.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { webhookEvents } from '@gsp/audit-export/testing';
import { startKube, until } from './helper.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const BATCH_MAX = 200;

/** One event as the receiver got it, and which life of the control plane sent its batch. */
interface Delivered {
  id: string;
  requestId: string;
  path: string;
  life: number;
  batch: number;
}

/**
 * A webhook receiver that answers 503 until `up()`, then takes 50 to 100 ms to answer each batch,
 * so that a batch is nearly always in flight while the backlog of the outage drains. Each batch
 * it takes is read with the CloudEvents SDK (which validates every event).
 */
async function slowReceiver(life: () => number, up: () => boolean) {
  const delivered: Delivered[] = [];
  const state = { refused: 0, batches: 0, answered: 0, pending: 0, invalid: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!up()) {
        state.refused++;
        res.writeHead(503).end();
        return;
      }
      const batch = state.batches++;
      try {
        const events = webhookEvents({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: 0 });
        for (const event of events) {
          const data = event.data as { requestId: string; path: string };
          delivered.push({ id: event.id, requestId: data.requestId, path: data.path, life: life(), batch });
        }
      } catch {
        state.invalid++;
      }
      state.pending++;
      setTimeout(
        () => {
          state.pending--;
          state.answered++;
          if (!res.destroyed) res.writeHead(200).end();
        },
        50 + Math.random() * 50,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delivered,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Life {
  child: ChildProcess;
  base: string;
  exited: Promise<void>;
  stderr: () => string;
}

/** Starts the control plane as its own process and waits until it listens (on a port of its choosing). */
async function start(env: Record<string, string>): Promise<Life> {
  const child = spawn(process.execPath, nodeEntry(server), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await until(
    'the control plane to listen',
    () => /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1],
    30_000,
  ).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}: ${stderr}`);
  });
  return { child, base: `http://127.0.0.1:${port}`, exited, stderr: () => stderr };
}

/**
 * Sends audited requests from `workers` loops until `stop()` says so or `max` have been sent:
 * the request ids of those answered, and how many got no answer (the process was killed under them).
 */
async function load(base: string, workers: number, max: number, stop: () => boolean, onAnswer: () => void) {
  const answered: string[] = [];
  let sent = 0;
  let unanswered = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stop() && sent < max) {
        sent++;
        try {
          const response = await fetch(`${base}/api/v1/session`);
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`GET /api/v1/session answered ${response.status}`);
          answered.push(response.headers.get('x-request-id') as string);
          onAnswer();
        } catch (err) {
          if (!stop()) throw err;
          unanswered++;
          return;
        }
      }
    }),
  );
  return { answered, unanswered };
}

const seqOf = (id: string) => Number(id.split('-')[1]);

t.test(
  'after a SIGKILL mid-export and a restart on the same spool, ' +
    'every answered request is delivered, in order, duplicates only from the batch in flight',
  async (t) => {
    const kube = await startKube(t);
    const spoolDir = await mkdtemp(join(tmpdir(), 'cp-audit-export-crash-'));
    t.teardown(() => rm(spoolDir, { recursive: true, force: true }));
    let life = 1;
    let answeredCount = 0;
    const receiver = await slowReceiver(
      () => life,
      () => answeredCount >= 1500,
    );
    t.teardown(() => receiver.close());
    const env = {
      KUBECONFIG: kube.kubeconfigPath,
      POD_NAMESPACE: 'default',
      AUTH_MODE: 'none',
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_MAX: '1000000000',
      REPLICA_ID: 'crash-test',
      AUDIT_WEBHOOK_URL: receiver.url,
      AUDIT_SPOOL_DIR: spoolDir,
      AUDIT_EXPORT_BATCH_MAX: String(BATCH_MAX),
      AUDIT_EXPORT_BACKOFF_BASE: '50ms',
      AUDIT_EXPORT_BACKOFF_MAX: '500ms',
    };

    const first = await start(env);
    // Never left running, whatever happens below.
    const guard = setTimeout(() => first.child.kill('SIGKILL'), 90_000);
    t.teardown(() => clearTimeout(guard));
    let killed = false;
    let lastBatchBeforeKill = -1;
    // Killed once the receiver, down for the first 1,500 requests, has taken two batches and holds a third.
    const check = () => {
      if (killed || receiver.state.answered < 2 || receiver.state.pending === 0) return;
      killed = true;
      lastBatchBeforeKill = receiver.state.batches - 1;
      first.child.kill('SIGKILL');
    };
    const poll = setInterval(check, 5);
    t.teardown(() => clearInterval(poll));
    const before = await load(
      first.base,
      16,
      20_000,
      () => killed,
      () => {
        answeredCount++;
        check();
      },
    );
    clearInterval(poll);
    t.ok(killed, `killed after ${before.answered.length} answered requests`);
    await first.exited;
    const deliveredBeforeKill = new Set(receiver.delivered.map((d) => d.id)).size;
    t.ok(
      receiver.state.refused > 0 && deliveredBeforeKill > 0 && deliveredBeforeKill < before.answered.length,
      `killed mid-export: ${deliveredBeforeKill} of ${before.answered.length} records had reached the receiver`,
    );

    life = 2;
    const second = await start(env);
    t.teardown(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });
    const after = await load(
      second.base,
      8,
      500,
      () => false,
      () => undefined,
    );
    t.equal(after.answered.length, 500, 'the restarted control plane answers');

    const answered = [...before.answered, ...after.answered];
    await until(
      'every answered request at the receiver',
      () => {
        const ids = new Set(receiver.delivered.map((d) => d.requestId));
        return answered.every((id) => ids.has(id));
      },
      60_000,
    ).catch((err: Error) => {
      const ids = new Set(receiver.delivered.map((d) => d.requestId));
      const missing = answered.filter((id) => !ids.has(id)).length;
      throw new Error(`${err.message}: ${missing} of ${answered.length} missing; ${second.stderr()}`);
    });

    t.equal(receiver.state.invalid, 0, 'every batch is a valid CloudEvents batch');
    const firstSeen = new Map<string, Delivered>();
    const duplicates: Delivered[] = [];
    for (const d of receiver.delivered) {
      if (firstSeen.has(d.id)) duplicates.push(d);
      else firstSeen.set(d.id, d);
    }
    const distinct = [...firstSeen.values()];
    t.ok(
      distinct.every((d, i) => i === 0 || seqOf(d.id) > seqOf((distinct[i - 1] as Delivered).id)),
      `${distinct.length} distinct records, first delivered in the order they were written`,
    );
    const requestIds = new Set(distinct.map((d) => d.requestId));
    t.equal(requestIds.size, distinct.length, 'one record per request');
    t.ok(
      answered.every((id) => requestIds.has(id)),
      `all ${answered.length} answered requests delivered ` +
        `(${before.answered.length} before the kill, ${after.answered.length} after)`,
    );
    const answeredSet = new Set(answered);
    const extra = distinct.filter((d) => !answeredSet.has(d.requestId));
    t.ok(
      extra.length <= before.unanswered && extra.every((d) => d.path === '/api/v1/session'),
      `the ${extra.length} other records are of requests cut off by the kill (${before.unanswered} got no answer)`,
    );

    // The batch in flight at the kill is the only one the first life had not acknowledged.
    const inFlight = new Set(
      receiver.delivered.filter((d) => d.life === 1 && d.batch === lastBatchBeforeKill).map((d) => d.id),
    );
    t.ok(
      duplicates.length <= BATCH_MAX && duplicates.every((d) => d.life === 2 && inFlight.has(d.id)),
      `duplicates only from the batch in flight at the kill (${inFlight.size} records)`,
    );
    t.comment(
      `${answered.length} answered requests, ${distinct.length} distinct records delivered, ` +
        `${duplicates.length} delivered twice (batch in flight at the kill: ${inFlight.size})`,
    );
  },
);
