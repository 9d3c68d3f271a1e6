import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshSchema, JWT_SECRET } from './helper.js';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('the server process listens, then shuts down cleanly on SIGTERM', async (t) => {
  const { url } = await freshSchema(t);
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', server], {
    env: { PATH: process.env.PATH, DATABASE_URL: url, AUTH_JWT_SECRET: JWT_SECRET, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 30_000;
  let address: string | undefined;
  while (!address && Date.now() < deadline) {
    address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (!address) await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(address, 'it logged its listening address');
  t.equal((await fetch(`${address}/readyz`)).status, 200);

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'exit code 0 after a graceful close');
  t.match(output, /"msg":"shutting down"/);
  t.notMatch(output, new RegExp(JWT_SECRET), 'the secret never reaches the log');
});
