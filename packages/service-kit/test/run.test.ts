import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const fixture = fileURLToPath(new URL('./fixtures/run-service.ts', import.meta.url));

/** The fixture service as its own process; `signal` sends a signal once it is ready. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', fixture], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
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
  return { child, printed, exited, lines: () => out.trim().split('\n') };
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

t.test('a second signal during a drain closes the service at once', async (t) => {
  const service = start({ DRAIN: 'hang' });
  await service.printed('ready');
  service.child.kill('SIGTERM');
  await service.printed('drain');
  service.child.kill('SIGTERM');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'drain', 'close']);
});

t.test('SIGTERM closes a service without a drain, as before', async (t) => {
  const service = start({});
  await service.printed('ready');
  service.child.kill('SIGTERM');
  t.equal(await service.exited, 0);
  t.same(service.lines(), ['ready', 'close']);
});
