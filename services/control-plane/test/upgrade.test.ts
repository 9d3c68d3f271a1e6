import net from 'node:net';
import t from 'tap';
import { build, startKube } from './helper.js';

t.test('a refused upgrade on any route is answered and its socket closed', async (t) => {
  const kube = await startKube(t);
  const { app, audit } = await build(t, kube);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;
  for (const path of ['/api/v1/gameservers', '/api/v1/gameservers/default/x/console']) {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const closed = await Promise.race([
      new Promise((r) => socket.once('close', () => r(true))),
      new Promise((r) => setTimeout(() => r(false), 3000)),
    ]);
    t.ok(closed, `${path}: socket closed`);
    t.match(text, /^HTTP\/1.1 401/, `${path}: 401`);
    socket.destroy();
  }
  t.equal(audit.lines().filter((l) => l.status === 401).length, 2, 'each audited');
});
