import type http from 'node:http';
import t from 'tap';
import { fakeApiServer, startStack } from './stack.js';

t.test('headers cross the tunnel as sent: repeats and order kept, hop headers and credentials dropped, the caller impersonated', async (t) => {
  let seen: string[] = [];
  const apiUrl = await fakeApiServer(t, (req, res) => {
    seen = req.rawHeaders;
    res.writeHead(200, [
      'Content-Type', 'application/json',
      'Warning', '299 - "first"',
      'X-Trace', 'a',
      'Warning', '299 - "second"',
      'Keep-Alive', 'timeout=5',
      'Connection', 'keep-alive',
    ]);
    res.end('{}');
  });
  const stack = await startStack(t, { clusters: 0 });
  const { id, token } = await stack.addCluster('echo', apiUrl);

  const req = stack.proxyRequest(id, '/api/v1/namespaces', token);
  req.setHeader('Accept', 'application/json');
  req.setHeader('X-Repeat', ['one', 'two']);
  req.setHeader('Impersonate-Group', 'system:masters');
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
  res.resume();
  t.equal(res.statusCode, 200);
  const pairs = (raw: string[]): [string, string][] => raw.flatMap((v, i) => (i % 2 ? [] : [[v.toLowerCase(), raw[i + 1] as string] as [string, string]]));
  const answered = pairs(res.rawHeaders);
  t.same(
    answered.filter(([n]) => n === 'warning' || n === 'x-trace').map(([, v]) => v),
    ['299 - "first"', 'a', '299 - "second"'],
    'the API server’s headers reach kubectl in order, repeats kept',
  );
  // The proxy's own connection to kubectl has its own Keep-Alive; the API server's stays behind.
  t.notOk(answered.some(([n, v]) => n === 'keep-alive' && v === 'timeout=5'), "the API server's hop headers stay behind");

  const sent = pairs(seen);
  t.same(sent.filter(([n]) => n === 'x-repeat').map(([, v]) => v), ['one', 'two'], 'repeated request headers arrive, in order');
  t.ok(sent.some(([n, v]) => n === 'impersonate-user' && v === 'olivia'), 'the caller is impersonated');
  t.notOk(sent.some(([n]) => n === 'impersonate-group'), "the caller's own impersonation is dropped");
  t.notOk(sent.some(([n, v]) => n === 'authorization' && v.includes(token)), 'the kubeconfig token never reaches the cluster');
});
