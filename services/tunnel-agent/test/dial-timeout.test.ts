import { spawn } from 'node:child_process';
import net from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { kubeTarget } from '../src/kube.js';
import { startAgent } from '../src/agent/agent.js';
import type { TunnelAgent } from '../src/agent/agent.js';

/**
 * A proxy address that never completes a TCP handshake: a process listening with a backlog
 * of one that never accepts (its event loop is blocked), with its queue (two slots) taken. Linux then
 * drops further SYNs, as a firewall that drops packets does.
 */
async function blackhole(t: Test): Promise<number> {
  const child = spawn(process.execPath, [
    '-e',
    `const s = require('node:net').createServer();
     s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       process.stdout.write(s.address().port + '\\n');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
     });`,
  ]);
  t.teardown(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', () => reject(new Error('the blackhole process exited')));
  });
  for (let i = 0; i < 4; i++) {
    const filler = net.connect({ port, host: '127.0.0.1' });
    filler.on('error', () => undefined);
    t.teardown(() => filler.destroy());
  }
  return port;
}

/** Resolves whether a TCP connection to `port` completes within `ms`. */
function connects(port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (result: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A TCP server that accepts and then says nothing: the TLS handshake never completes. */
async function mute(t: Test): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function agentFor(t: Test, url: string): Promise<TunnelAgent> {
  const kube = await kubeTarget({
    url: 'http://127.0.0.1:9',
    token: undefined,
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  const agent = startAgent({
    proxyTunnelUrl: url,
    clusterId: 'c-1',
    agentToken: 'token',
    kube,
    backoffInitialMs: 20,
    backoffMaxMs: 50,
    backoffResetMs: 60_000,
    connectTimeoutMs: 300,
    log: quiet,
  });
  t.teardown(async () => {
    await agent.stop();
    await kube.close();
  });
  return agent;
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

t.test(
  'a dial whose SYNs are dropped is abandoned after AGENT_CONNECT_TIMEOUT and retried, not held for minutes',
  async (t) => {
    const port = await blackhole(t);
    t.notOk(await connects(port, 500), 'the address drops SYNs (a plain connect hangs)');
    const agent = await agentFor(t, `http://127.0.0.1:${port}`);
    t.ok(
      await until(() => agent.attempts >= 3, 10_000),
      'the agent gave up and dialled again, three times within 10 s',
    );
    t.match(agent.lastError?.message ?? '', /no connection to the proxy within 300 ms/);
    t.notOk(agent.connected);
  },
);

t.test('a TLS handshake that never answers is abandoned the same way', async (t) => {
  const port = await mute(t);
  const agent = await agentFor(t, `https://127.0.0.1:${port}`);
  t.ok(await until(() => agent.attempts >= 3, 10_000), 'the agent gave up and dialled again, three times within 10 s');
  t.match(agent.lastError?.message ?? '', /no connection to the proxy within 300 ms/);
});

t.test(
  'a proxy that takes the connection but never accepts the tunnel is abandoned too, not held until a ping fails',
  async (t) => {
    const port = await mute(t);
    const agent = await agentFor(t, `http://127.0.0.1:${port}`);
    t.ok(
      await until(() => agent.attempts >= 3, 10_000),
      'the agent gave up and dialled again, three times within 10 s',
    );
    t.match(agent.lastError?.message ?? '', /the proxy did not accept the tunnel within 600 ms/);
    t.notOk(agent.connected);
  },
);
