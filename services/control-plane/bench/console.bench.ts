/**
 * Consoles at scale: BENCH_CONSOLES (default 200) consoles open at once on one control plane,
 * spread over BENCH_CONSOLE_SERVERS game servers (default 10) of kube-lite, each typing one
 * `say` line a second for BENCH_CONSOLE_SECONDS (default 10). Reports the time from sending the
 * input to receiving the game's echo (p50, p99, max), and the control plane's memory per open
 * console: heap plus buffers, and RSS, after a full collection with every console open, minus
 * the same before any was, divided by the count (RSS rarely shrinks, so it understates). Targets:
 * p99 under 50 ms, under 100 KiB per console.
 *
 * The control plane runs alone in a child process (its memory is its own); kube-lite and the
 * clients run here.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeLite } from '@gsp/kube-lite';

const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 200);
const SERVERS = Number(process.env.BENCH_CONSOLE_SERVERS ?? 10);
const SECONDS = Number(process.env.BENCH_CONSOLE_SECONDS ?? 10);

interface Memory {
  heapUsed: number;
  external: number;
  rss: number;
}

const kube = await startKubeLite({ port: 0, stepMs: 50 });
await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'games' } } });
const child = fork(fileURLToPath(new URL('./console-server.ts', import.meta.url)), [], {
  execArgv: ['--conditions=@gsp/source', '--import', 'tsx', '--expose-gc'],
  env: { ...process.env, KUBECONFIG: kube.kubeconfigPath },
});
const { port } = await new Promise<{ port: number }>((resolve, reject) => {
  child.once('message', (m) => resolve(m as { port: number }));
  child.once('exit', (code) => reject(new Error(`the control plane exited with ${code}`)));
});
const memory = () =>
  new Promise<Memory>((resolve) => {
    child.once('message', (m) => resolve(m as Memory));
    child.send('memory');
  });

const base = `http://127.0.0.1:${port}`;
const admin = {
  authorization: `Basic ${Buffer.from('bench:bench-password-123').toString('base64')}`,
  'content-type': 'application/json',
};

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: admin,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pending = new Map<string, number>();
const latencies: number[] = [];

/** One console client; every `[server] <token>` it reads closes the measurement of that token. */
async function openConsole(key: string, server: string): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/gameservers/games/${server}/console`, {
    headers: { 'x-api-key': key },
  });
  let opened = false;
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as { type: string; data?: string; reason?: string };
      if (message.type === 'state' && !opened) {
        opened = true;
        resolve();
      } else if (message.type === 'output') {
        for (const token of message.data?.matchAll(/\[server\] (c\d+-\d+)/g) ?? []) {
          const sent = pending.get(token[1] as string);
          if (sent === undefined) continue;
          pending.delete(token[1] as string);
          latencies.push(performance.now() - sent);
        }
      } else if (message.type === 'closed') {
        console.error(`a console was closed: ${message.reason}`);
      }
    });
    ws.once('error', reject);
  });
  return ws;
}

function say(ws: WebSocket, token: string): void {
  pending.set(token, performance.now());
  ws.send(JSON.stringify({ type: 'input', data: `say ${token}\n` }));
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

const consoles: WebSocket[] = [];
try {
  await call('PUT', '/api/v1/profiles/bench', {
    image: 'example/game:1.0',
    ports: [{ name: 'game', containerPort: 7777 }],
  });
  const servers = Array.from({ length: SERVERS }, (_, i) => `bench-${i}`);
  for (const name of servers) await call('POST', '/api/v1/gameservers/games', { profile: 'bench', name });
  await waitFor(
    'the game servers to be Ready',
    async () =>
      ((await call('GET', '/api/v1/gameservers?namespace=games')) as { state: string }[]).filter(
        (g) => g.state === 'Ready',
      ).length === SERVERS,
  );
  const { key } = (await call('POST', '/api/v1/apikeys', { name: 'bench-operator', role: 'operator' })) as {
    key: string;
  };

  // Warm-up: the code paths of a console are loaded and compiled before the baseline is taken.
  const warm = await Promise.all(servers.slice(0, 5).map((s) => openConsole(key, s)));
  warm.forEach((ws, i) => say(ws, `c${10_000 + i}-0`));
  await waitFor('the warm-up answers', () => pending.size === 0);
  for (const ws of warm) ws.close();
  latencies.length = 0;

  const before = await memory();
  for (let i = 0; i < CONSOLES; i += 20) {
    const batch = Array.from({ length: Math.min(20, CONSOLES - i) }, (_, j) =>
      openConsole(key, servers[(i + j) % SERVERS] as string),
    );
    consoles.push(...(await Promise.all(batch)));
  }
  consoles.forEach((ws, i) => say(ws, `c${i}-0`));
  await waitFor('the first answer of every console', () => pending.size === 0);
  const open = await memory();
  latencies.length = 0;

  // Each console types once a second, the consoles' seconds evenly staggered.
  const timers: NodeJS.Timeout[] = [];
  const ended = new Promise<void>((resolve) => setTimeout(resolve, SECONDS * 1000 + 50));
  consoles.forEach((ws, i) => {
    let n = 0;
    const start = setTimeout(
      () => {
        say(ws, `c${i}-${++n}`);
        timers.push(setInterval(() => (n < SECONDS ? say(ws, `c${i}-${++n}`) : undefined), 1000));
      },
      Math.floor((i / consoles.length) * 1000),
    );
    timers.push(start);
  });
  await ended;
  await waitFor('the last answers', () => pending.size === 0, 5000).catch(() => undefined);
  for (const timer of timers) clearInterval(timer);
  const during = await memory();

  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  const perConsole = {
    heap: (open.heapUsed + open.external - before.heapUsed - before.external) / CONSOLES,
    rss: (open.rss - before.rss) / CONSOLES,
  };
  console.log(
    `console: ${CONSOLES} consoles on ${SERVERS} game servers, ` +
      `each typing one line a second for ${SECONDS} s; Node ${process.version}\n`,
  );
  console.log(
    `input to echoed output: ${sorted.length} lines (${pending.size} unanswered)   ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms   p99 ${p99.toFixed(1)} ms   ` +
      `max ${(sorted.at(-1) ?? 0).toFixed(1)} ms   ` +
      `(target p99 < 50 ms: ${p99 < 50 && pending.size === 0 ? 'met' : 'NOT met'})`,
  );
  console.log(
    `control plane memory per open console: heap and buffers ${kib(perConsole.heap)}   RSS ${kib(perConsole.rss)}   ` +
      `(target < 100 KiB: ${Math.max(perConsole.heap, perConsole.rss) < 100 * 1024 ? 'met' : 'NOT met'})`,
  );
  console.log(
    `control plane: heap ${kib(before.heapUsed)} -> ${kib(open.heapUsed)} open -> ` +
      `${kib(during.heapUsed)} after the run; ` +
      `RSS ${kib(before.rss)} -> ${kib(open.rss)} -> ${kib(during.rss)}`,
  );
} finally {
  for (const ws of consoles) ws.close();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  await kube.close();
}
