import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { nodeEntry } from '../testing/entry.js';

const fixture = fileURLToPath(new URL('./fixtures/run-service.ts', import.meta.url));

/** The fixture service as its own process; `signal` sends a signal once it is ready. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, nodeEntry(fixture), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters.splice(0)) w();
  });
  const printed = (line: string) =>
    new Promise<void>((resolve) => {
      const check = () => (out.split('\n').includes(line) ? resolve() : waiters.push(check));
      check();
    });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  return { child, printed, exited, lines: () => out.trim().split('\n'), stderr: () => err };
}

t.test('SIGTERM drains a service that can drain, and the process exits 0 when the drain is done', async (t) => {
  const service = start({ DRAIN: '1' });
  await service.printed('ready');
  service.child.kill('SIGTERM');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'drain'], 'drain, not close');
});

t.test('SIGINT closes at once even when the service can drain', async (t) => {
  const service = start({ DRAIN: '1' });
  await service.printed('ready');
  service.child.kill('SIGINT');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'close']);
});

for (const second of ['SIGTERM', 'SIGINT'] as const)
  t.test(`a ${second} during a drain exits at once with 1, saying so`, async (t) => {
    const service = start({ DRAIN: 'hang' });
    await service.printed('ready');
    service.child.kill('SIGTERM');
    await service.printed('drain');
    const sentAt = Date.now();
    service.child.kill(second);
    t.equal(await service.exited, 1, 'a failure: what was in flight is cut');
    const ms = Date.now() - sentAt;
    t.ok(ms < 5000, `at once, not after the drain's 20 s deadline (${ms} ms)`);
    t.same(service.lines(), ['ready', 'drain'], 'no close is waited for');
    t.match(service.stderr(), `fixture: ${second} during the drain: exiting at once`);
  });

t.test('a SIGTERM after SIGINT lets the close under way finish (Ctrl-C, then npm start stopping)', async (t) => {
  const service = start({ DRAIN: '1', CLOSE: 'slow' });
  await service.printed('ready');
  service.child.kill('SIGINT');
  await service.printed('close');
  service.child.kill('SIGTERM');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'close', 'closed']);
});

t.test('SIGTERM closes a service without a drain, as before', async (t) => {
  const service = start({});
  await service.printed('ready');
  service.child.kill('SIGTERM');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'close']);
});
